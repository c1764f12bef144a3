/**
 * How untrusted text is made visible: invisible and direction-changing characters (zero-width,
 * bidi overrides and isolates, variation selectors, tags, C0/C1 controls) become named marks
 * (⟦U+202E⟧), so nothing an agent sends can hide text or reorder what a reviewer reads.
 */
const INVISIBLE_RANGES: [number, number][] = [
  [0x0000, 0x001f], [0x007f, 0x009f], [0x00ad, 0x00ad], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5],
  [0x180e, 0x180e], [0x200b, 0x200f], [0x2028, 0x2029], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164],
  [0xfe00, 0xfe0f], [0xfeff, 0xfeff], [0xffa0, 0xffa0], [0xfff0, 0xfffb], [0xe0000, 0xe007f],
];

/** Layout characters a multi-line block (pretty JSON, a body as received) keeps as layout. */
const LAYOUT = new Set([0x0a, 0x09]);

export function isInvisible(codePoint: number): boolean {
  return INVISIBLE_RANGES.some(([low, high]) => codePoint >= low && codePoint <= high);
}

export type Segment = { text: string } | { mark: string };

/** `U+202E` for a code point: what a mark names. */
export function codePointName(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The text cut into plain runs and marks; with `multiline`, newlines and tabs stay layout. */
export function visibleSegments(value: string, options: { multiline?: boolean } = {}): Segment[] {
  const segments: Segment[] = [];
  let plain = '';
  for (const ch of value) {
    const codePoint = ch.codePointAt(0)!;
    if (isInvisible(codePoint) && !(options.multiline && LAYOUT.has(codePoint))) {
      if (plain) segments.push({ text: plain });
      plain = '';
      segments.push({ mark: codePointName(codePoint) });
    } else {
      plain += ch;
    }
  }
  if (plain) segments.push({ text: plain });
  return segments;
}

/** For places that take plain text only (an option, a title, an accessible name): marks inline. */
export function visibleText(value: string): string {
  return visibleSegments(value)
    .map((segment) => ('text' in segment ? segment.text : `⟦${segment.mark}⟧`))
    .join('');
}

/** Whether the text has characters beyond printable ASCII (homoglyph-prone): flagged beside it. */
export function hasNonAscii(value: string): boolean {
  return [...value].some((ch) => ch.codePointAt(0)! > 0x7e);
}
