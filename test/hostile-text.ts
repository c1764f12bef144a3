/**
 * Hostile Unicode by class: the characters normalization, case folding, grapheme segmentation and
 * bidi handling treat specially, each class a few units to repeat (alone, alternating, mixed). Used
 * by lib/text/hostile-text.test.ts (generated cases, steps counted) and scripts/bench/text.ts (the
 * text pipeline timed per character at 1k, 8k and 64k for each class).
 */

const chars = (...codePoints: number[]) => codePoints.map((codePoint) => String.fromCodePoint(codePoint));

export const HOSTILE_CLASSES: Record<string, string[]> = {
  // Non-starters of many combining classes (1, 7, 9, 10, 35, 103, 129, 130, 216, 218, 220, 230,
  // 240), ones that decompose to two (U+0344, U+0F73, U+0F75), and recent ones (Unicode 14–16).
  'combining marks': chars(
    0x0301,
    0x0316,
    0x0334,
    0x0345,
    0x093c,
    0x094d,
    0x05b0,
    0x0670,
    0x0e38,
    0x0f71,
    0x0f72,
    0x1d165,
    0x302a,
    0x0344,
    0x0f73,
    0x0f75,
    0x1ab0,
    0x10efd,
    0x1e4ec,
    0x0897,
  ),
  'alternating classes 230 / 220': chars(0x0301, 0x0316),
  'alternating classes 1 / 240': chars(0x0334, 0x0345),
  // Conjoining jamo (L, V, T) and precomposed syllables: composition and segmentation rules of their own.
  'Hangul jamo': chars(0x1100, 0x1161, 0x11a8, 0x1112, 0x1175, 0x11c2, 0xac00, 0xd7a3, 0x115f, 0x1160),
  'variation selectors': chars(0xfe00, 0xfe0e, 0xfe0f, 0xe0100, 0xe01ef, 0x180b),
  'ZWJ sequences': ['👩\u200d💻', '👨\u200d👩\u200d👧', '\u200d', '🏳\ufe0f\u200d🌈', '👋🏽'],
  'regional indicators': chars(0x1f1e6, 0x1f1eb, 0x1f1f7, 0x1f1fa, 0x1f1ff),
  'bidi controls': chars(
    0x202a,
    0x202b,
    0x202c,
    0x202d,
    0x202e,
    0x2066,
    0x2067,
    0x2068,
    0x2069,
    0x200e,
    0x200f,
    0x061c,
  ),
  'default-ignorables': chars(
    0x00ad,
    0x034f,
    0x180e,
    0x200b,
    0x200c,
    0x2060,
    0x2064,
    0xfeff,
    0xe0001,
    0xe0041,
    0xe007f,
    0x3164,
  ),
  // Case folding and compatibility forms that change length: ß, İ, ŉ, ligatures, ﷺ (18 characters in NFKC), Greek with marks.
  'case folding and expansions': chars(
    0x00df,
    0x0130,
    0x0149,
    0x1e9e,
    0xfb00,
    0xfb03,
    0xfdfa,
    0x0390,
    0x03a3,
    0x1f88,
    0x2163,
    0x33ff,
  ),
};
