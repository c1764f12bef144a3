import { step } from './scan-steps';

/**
 * Invisible and direction-changing characters: zero-width, bidi overrides and isolates, variation
 * selectors, tags, C0/C1 controls. No imports beyond lib/text: client components use it.
 */
const INVISIBLE_RANGES: [number, number][] = [
  [0x0000, 0x001f],
  [0x007f, 0x009f],
  [0x00ad, 0x00ad],
  [0x061c, 0x061c],
  [0x115f, 0x1160],
  [0x17b4, 0x17b5],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x2029],
  [0x202a, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff0, 0xfffb],
  [0xe0000, 0xe007f],
];

/**
 * Unicode's own list of what renders as nothing (DerivedCoreProperties), as the regular expression
 * engine knows it: the ranges above miss some (U+034F COMBINING GRAPHEME JOINER, Mongolian and
 * supplementary variation selectors, shorthand format controls), and "Ig\u034Fnore your rules"
 * passed for clean. One character at a time.
 */
const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;

export function isInvisible(codePoint: number): boolean {
  return (
    INVISIBLE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high) ||
    (codePoint > 0x7f && DEFAULT_IGNORABLE.test(String.fromCodePoint(codePoint)))
  );
}

/** `U+202E` for a code point: what a mark names. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const isPictographic = (codePoint: number | undefined) =>
  codePoint !== undefined && PICTOGRAPHIC.test(String.fromCodePoint(codePoint));
const isSkinTone = (codePoint: number | undefined) =>
  codePoint !== undefined && codePoint >= 0x1f3fb && codePoint <= 0x1f3ff;
const KEYCAP_BASE = new Set([0x23, 0x2a, ...Array.from({ length: 10 }, (_, digit) => 0x30 + digit)]);
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

/**
 * The invisible characters a reviewer should be told about, as indexes into `[...value]`: every
 * one except layout (tab, line feed, carriage return) and the ones that are part of an emoji —
 * a variation selector after a pictograph or keycap base (❤️, 1️⃣), a zero width joiner between
 * two pictographs (👩‍💻), and the tag sequence of a subdivision flag (🏴 + tags + CANCEL TAG).
 * Rendering still marks them all (lib/text/visible.ts): this only decides what is worth a flag.
 */
export function hiddenCharacterIndexes(value: string): number[] {
  const points = [...value].map((ch) => ch.codePointAt(0)!);
  const emoji = new Set<number>();
  points.forEach((codePoint, index) => {
    step();
    if (codePoint === BLACK_FLAG) {
      let end = index + 1;
      while (end < points.length && points[end]! >= 0xe0020 && points[end]! <= 0xe007e) {
        step();
        end += 1;
      }
      if (end > index + 1 && points[end] === CANCEL_TAG) {
        for (let i = index + 1; i <= end; i += 1) {
          step();
          emoji.add(i);
        }
      }
    }
    if (codePoint === 0xfe0e || codePoint === 0xfe0f) {
      const before = points[index - 1];
      if (isPictographic(before) || (before !== undefined && KEYCAP_BASE.has(before) && points[index + 1] === 0x20e3))
        emoji.add(index);
    }
    if (codePoint === 0x200d) {
      let back = index - 1;
      while (back >= 0 && (points[back] === 0xfe0f || isSkinTone(points[back]))) {
        step();
        back -= 1;
      }
      if (isPictographic(points[back]) && isPictographic(points[index + 1])) emoji.add(index);
    }
  });
  return points.flatMap((codePoint, index) => {
    step();
    return isInvisible(codePoint) && codePoint !== 0x09 && codePoint !== 0x0a && codePoint !== 0x0d && !emoji.has(index)
      ? [index]
      : [];
  });
}
