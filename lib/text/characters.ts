/**
 * Names for the characters a reviewer must be told about: invisible and direction-changing ones,
 * and look-alikes of ASCII letters and digits. A small table for the common ones (from the Unicode
 * Character Database), computed names for the regular blocks (fullwidth forms, mathematical
 * alphanumerics, tags). No imports: client components use it.
 */

const INVISIBLE_NAMES: Record<number, string> = {
  0x0000: 'NULL',
  0x0008: 'BACKSPACE',
  0x0009: 'CHARACTER TABULATION',
  0x000a: 'LINE FEED',
  0x000d: 'CARRIAGE RETURN',
  0x001b: 'ESCAPE',
  0x007f: 'DELETE',
  0x0085: 'NEXT LINE',
  0x00ad: 'SOFT HYPHEN',
  0x034f: 'COMBINING GRAPHEME JOINER',
  0x061c: 'ARABIC LETTER MARK',
  0x115f: 'HANGUL CHOSEONG FILLER',
  0x1160: 'HANGUL JUNGSEONG FILLER',
  0x17b4: 'KHMER VOWEL INHERENT AQ',
  0x17b5: 'KHMER VOWEL INHERENT AA',
  0x180e: 'MONGOLIAN VOWEL SEPARATOR',
  0x200b: 'ZERO WIDTH SPACE',
  0x200c: 'ZERO WIDTH NON-JOINER',
  0x200d: 'ZERO WIDTH JOINER',
  0x200e: 'LEFT-TO-RIGHT MARK',
  0x200f: 'RIGHT-TO-LEFT MARK',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2060: 'WORD JOINER',
  0x2061: 'FUNCTION APPLICATION',
  0x2062: 'INVISIBLE TIMES',
  0x2063: 'INVISIBLE SEPARATOR',
  0x2064: 'INVISIBLE PLUS',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
  0x206a: 'INHIBIT SYMMETRIC SWAPPING',
  0x206b: 'ACTIVATE SYMMETRIC SWAPPING',
  0x206c: 'INHIBIT ARABIC FORM SHAPING',
  0x206d: 'ACTIVATE ARABIC FORM SHAPING',
  0x206e: 'NATIONAL DIGIT SHAPES',
  0x206f: 'NOMINAL DIGIT SHAPES',
  0x3164: 'HANGUL FILLER',
  0xfeff: 'ZERO WIDTH NO-BREAK SPACE',
  0xffa0: 'HALFWIDTH HANGUL FILLER',
  0xfff9: 'INTERLINEAR ANNOTATION ANCHOR',
  0xfffa: 'INTERLINEAR ANNOTATION SEPARATOR',
  0xfffb: 'INTERLINEAR ANNOTATION TERMINATOR',
  0xe0001: 'LANGUAGE TAG',
  0xe007f: 'CANCEL TAG',
};

/** The ASCII punctuation's names, for the fullwidth forms ("FULLWIDTH SOLIDUS") and the tags. */
const ASCII_PUNCTUATION: Record<string, string> = {
  ' ': 'SPACE',
  '!': 'EXCLAMATION MARK',
  '"': 'QUOTATION MARK',
  '#': 'NUMBER SIGN',
  $: 'DOLLAR SIGN',
  '%': 'PERCENT SIGN',
  '&': 'AMPERSAND',
  "'": 'APOSTROPHE',
  '(': 'LEFT PARENTHESIS',
  ')': 'RIGHT PARENTHESIS',
  '*': 'ASTERISK',
  '+': 'PLUS SIGN',
  ',': 'COMMA',
  '-': 'HYPHEN-MINUS',
  '.': 'FULL STOP',
  '/': 'SOLIDUS',
  ':': 'COLON',
  ';': 'SEMICOLON',
  '<': 'LESS-THAN SIGN',
  '=': 'EQUALS SIGN',
  '>': 'GREATER-THAN SIGN',
  '?': 'QUESTION MARK',
  '@': 'COMMERCIAL AT',
  '[': 'LEFT SQUARE BRACKET',
  '\\': 'REVERSE SOLIDUS',
  ']': 'RIGHT SQUARE BRACKET',
  '^': 'CIRCUMFLEX ACCENT',
  _: 'LOW LINE',
  '`': 'GRAVE ACCENT',
  '{': 'LEFT CURLY BRACKET',
  '|': 'VERTICAL LINE',
  '}': 'RIGHT CURLY BRACKET',
  '~': 'TILDE',
};
const DIGIT_NAMES = ['ZERO', 'ONE', 'TWO', 'THREE', 'FOUR', 'FIVE', 'SIX', 'SEVEN', 'EIGHT', 'NINE'];

/** The Unicode name of a printable ASCII character ("LATIN SMALL LETTER A", "DIGIT ZERO", "SOLIDUS"). */
function asciiName(ch: string): string {
  if (/[a-z]/.test(ch)) return `LATIN SMALL LETTER ${ch.toUpperCase()}`;
  if (/[A-Z]/.test(ch)) return `LATIN CAPITAL LETTER ${ch}`;
  if (/[0-9]/.test(ch)) return `DIGIT ${DIGIT_NAMES[Number(ch)]}`;
  return ASCII_PUNCTUATION[ch] ?? '';
}

/** A tag character (U+E0020–U+E007E) stands for an ASCII character: what it hides. */
export function tagValue(codePoint: number): string | undefined {
  return codePoint >= 0xe0020 && codePoint <= 0xe007e ? String.fromCodePoint(codePoint - 0xe0000) : undefined;
}

/** The Unicode name of an invisible or direction-changing character, when we know it. */
export function invisibleName(codePoint: number): string | undefined {
  const known = INVISIBLE_NAMES[codePoint];
  if (known) return known;
  const tag = tagValue(codePoint);
  if (tag !== undefined) return `TAG ${asciiName(tag)}`;
  if (codePoint >= 0xfe00 && codePoint <= 0xfe0f) return `VARIATION SELECTOR-${codePoint - 0xfe00 + 1}`;
  if (codePoint <= 0x1f || (codePoint >= 0x80 && codePoint <= 0x9f)) return 'CONTROL CHARACTER';
  return undefined;
}

/**
 * How a look-alike is treated. `script`: a letter of a script that also writes real words (Cyrillic,
 * Greek, Armenian), a look-alike only beside Latin (see lib/text/lookalike.ts). `width`: a fullwidth
 * form, ordinary in CJK text. `always`: never ordinary in text a person or agent types.
 */
export type LookalikeClass = 'script' | 'width' | 'always';
export type LookalikeInfo = { name: string; looksLike: string; class: LookalikeClass };

// [code point, name, looks like]. Only the ones that pass for an ASCII letter, digit or separator in
// ordinary fonts; nothing here for accented Latin (é, ü), currency (€, £), × · — or emoji.
const SCRIPT_LOOKALIKES: [number, string, string][] = [
  // Cyrillic
  [0x0405, 'CYRILLIC CAPITAL LETTER DZE', 'S'],
  [0x0406, 'CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I', 'I'],
  [0x0408, 'CYRILLIC CAPITAL LETTER JE', 'J'],
  [0x0410, 'CYRILLIC CAPITAL LETTER A', 'A'],
  [0x0412, 'CYRILLIC CAPITAL LETTER VE', 'B'],
  [0x0415, 'CYRILLIC CAPITAL LETTER IE', 'E'],
  [0x041a, 'CYRILLIC CAPITAL LETTER KA', 'K'],
  [0x041c, 'CYRILLIC CAPITAL LETTER EM', 'M'],
  [0x041d, 'CYRILLIC CAPITAL LETTER EN', 'H'],
  [0x041e, 'CYRILLIC CAPITAL LETTER O', 'O'],
  [0x0420, 'CYRILLIC CAPITAL LETTER ER', 'P'],
  [0x0421, 'CYRILLIC CAPITAL LETTER ES', 'C'],
  [0x0422, 'CYRILLIC CAPITAL LETTER TE', 'T'],
  [0x0423, 'CYRILLIC CAPITAL LETTER U', 'Y'],
  [0x0425, 'CYRILLIC CAPITAL LETTER HA', 'X'],
  [0x04ae, 'CYRILLIC CAPITAL LETTER STRAIGHT U', 'Y'],
  [0x04c0, 'CYRILLIC LETTER PALOCHKA', 'I'],
  [0x051a, 'CYRILLIC CAPITAL LETTER QA', 'Q'],
  [0x051c, 'CYRILLIC CAPITAL LETTER WE', 'W'],
  [0x0430, 'CYRILLIC SMALL LETTER A', 'a'],
  [0x0435, 'CYRILLIC SMALL LETTER IE', 'e'],
  [0x043e, 'CYRILLIC SMALL LETTER O', 'o'],
  [0x0440, 'CYRILLIC SMALL LETTER ER', 'p'],
  [0x0441, 'CYRILLIC SMALL LETTER ES', 'c'],
  [0x0443, 'CYRILLIC SMALL LETTER U', 'y'],
  [0x0445, 'CYRILLIC SMALL LETTER HA', 'x'],
  [0x0455, 'CYRILLIC SMALL LETTER DZE', 's'],
  [0x0456, 'CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I', 'i'],
  [0x0458, 'CYRILLIC SMALL LETTER JE', 'j'],
  [0x04bb, 'CYRILLIC SMALL LETTER SHHA', 'h'],
  [0x04cf, 'CYRILLIC SMALL LETTER PALOCHKA', 'l'],
  [0x0501, 'CYRILLIC SMALL LETTER KOMI DE', 'd'],
  [0x051b, 'CYRILLIC SMALL LETTER QA', 'q'],
  [0x051d, 'CYRILLIC SMALL LETTER WE', 'w'],
  // Greek
  [0x0391, 'GREEK CAPITAL LETTER ALPHA', 'A'],
  [0x0392, 'GREEK CAPITAL LETTER BETA', 'B'],
  [0x0395, 'GREEK CAPITAL LETTER EPSILON', 'E'],
  [0x0396, 'GREEK CAPITAL LETTER ZETA', 'Z'],
  [0x0397, 'GREEK CAPITAL LETTER ETA', 'H'],
  [0x0399, 'GREEK CAPITAL LETTER IOTA', 'I'],
  [0x039a, 'GREEK CAPITAL LETTER KAPPA', 'K'],
  [0x039c, 'GREEK CAPITAL LETTER MU', 'M'],
  [0x039d, 'GREEK CAPITAL LETTER NU', 'N'],
  [0x039f, 'GREEK CAPITAL LETTER OMICRON', 'O'],
  [0x03a1, 'GREEK CAPITAL LETTER RHO', 'P'],
  [0x03a4, 'GREEK CAPITAL LETTER TAU', 'T'],
  [0x03a5, 'GREEK CAPITAL LETTER UPSILON', 'Y'],
  [0x03a7, 'GREEK CAPITAL LETTER CHI', 'X'],
  [0x03b9, 'GREEK SMALL LETTER IOTA', 'i'],
  [0x03bd, 'GREEK SMALL LETTER NU', 'v'],
  [0x03bf, 'GREEK SMALL LETTER OMICRON', 'o'],
  [0x03c1, 'GREEK SMALL LETTER RHO', 'p'],
  [0x03c5, 'GREEK SMALL LETTER UPSILON', 'u'],
  [0x03f2, 'GREEK LUNATE SIGMA SYMBOL', 'c'],
  [0x03f3, 'GREEK LETTER YOT', 'j'],
  // Armenian
  [0x0555, 'ARMENIAN CAPITAL LETTER OH', 'O'],
  [0x0570, 'ARMENIAN SMALL LETTER HO', 'h'],
  [0x0578, 'ARMENIAN SMALL LETTER VO', 'n'],
  [0x057d, 'ARMENIAN SMALL LETTER SEH', 'u'],
  [0x0585, 'ARMENIAN SMALL LETTER OH', 'o'],
];

const ALWAYS_LOOKALIKES: [number, string, string][] = [
  [0x01c0, 'LATIN LETTER DENTAL CLICK', 'l'],
  [0x0251, 'LATIN SMALL LETTER ALPHA', 'a'],
  [0x0261, 'LATIN SMALL LETTER SCRIPT G', 'g'],
  [0x0589, 'ARMENIAN FULL STOP', ':'],
  [0x2024, 'ONE DOT LEADER', '.'],
  [0x2044, 'FRACTION SLASH', '/'],
  [0x210e, 'PLANCK CONSTANT', 'h'],
  [0x212a, 'KELVIN SIGN', 'K'],
  [0x2215, 'DIVISION SLASH', '/'],
  [0x2216, 'SET MINUS', '\\'],
  [0x2236, 'RATIO', ':'],
  [0xa789, 'MODIFIER LETTER COLON', ':'],
  // Roman numerals that are one letter.
  [0x2160, 'ROMAN NUMERAL ONE', 'I'],
  [0x2164, 'ROMAN NUMERAL FIVE', 'V'],
  [0x2169, 'ROMAN NUMERAL TEN', 'X'],
  [0x216c, 'ROMAN NUMERAL FIFTY', 'L'],
  [0x216d, 'ROMAN NUMERAL ONE HUNDRED', 'C'],
  [0x216e, 'ROMAN NUMERAL FIVE HUNDRED', 'D'],
  [0x216f, 'ROMAN NUMERAL ONE THOUSAND', 'M'],
  [0x2170, 'SMALL ROMAN NUMERAL ONE', 'i'],
  [0x2174, 'SMALL ROMAN NUMERAL FIVE', 'v'],
  [0x2179, 'SMALL ROMAN NUMERAL TEN', 'x'],
  [0x217c, 'SMALL ROMAN NUMERAL FIFTY', 'l'],
  [0x217d, 'SMALL ROMAN NUMERAL ONE HUNDRED', 'c'],
  [0x217e, 'SMALL ROMAN NUMERAL FIVE HUNDRED', 'd'],
  [0x217f, 'SMALL ROMAN NUMERAL ONE THOUSAND', 'm'],
];

const TABLE = new Map<number, LookalikeInfo>([
  ...SCRIPT_LOOKALIKES.map(([cp, name, looksLike]): [number, LookalikeInfo] => [
    cp,
    { name, looksLike, class: 'script' },
  ]),
  ...ALWAYS_LOOKALIKES.map(([cp, name, looksLike]): [number, LookalikeInfo] => [
    cp,
    { name, looksLike, class: 'always' },
  ]),
]);

// Mathematical Alphanumeric Symbols: 13 alphabets of A–Z a–z from U+1D400, then 5 sets of digits
// from U+1D7CE. The code points Unicode left unassigned there (their letters live elsewhere, e.g.
// ℎ) have no name.
const MATH_ALPHABETS = [
  'BOLD',
  'ITALIC',
  'BOLD ITALIC',
  'SCRIPT',
  'BOLD SCRIPT',
  'FRAKTUR',
  'DOUBLE-STRUCK',
  'BOLD FRAKTUR',
  'SANS-SERIF',
  'SANS-SERIF BOLD',
  'SANS-SERIF ITALIC',
  'SANS-SERIF BOLD ITALIC',
  'MONOSPACE',
];
const MATH_DIGITS = ['BOLD', 'DOUBLE-STRUCK', 'SANS-SERIF', 'SANS-SERIF BOLD', 'MONOSPACE'];
const MATH_UNASSIGNED = new Set([
  0x1d455, 0x1d49d, 0x1d4a0, 0x1d4a1, 0x1d4a3, 0x1d4a4, 0x1d4a7, 0x1d4a8, 0x1d4ad, 0x1d4ba, 0x1d4bc, 0x1d4c4, 0x1d506,
  0x1d50b, 0x1d50c, 0x1d515, 0x1d51d, 0x1d53a, 0x1d53f, 0x1d545, 0x1d547, 0x1d548, 0x1d549, 0x1d551,
]);

function mathLookalike(codePoint: number): LookalikeInfo | undefined {
  if (MATH_UNASSIGNED.has(codePoint)) return undefined;
  if (codePoint >= 0x1d400 && codePoint <= 0x1d6a3) {
    const offset = codePoint - 0x1d400;
    const letter = offset % 52;
    const ch = letter < 26 ? String.fromCharCode(65 + letter) : String.fromCharCode(97 + letter - 26);
    return {
      name:
        `MATHEMATICAL ${MATH_ALPHABETS[Math.floor(offset / 52)]} ` +
        `${letter < 26 ? 'CAPITAL' : 'SMALL'} ${ch.toUpperCase()}`,
      looksLike: ch,
      class: 'always',
    };
  }
  if (codePoint === 0x1d6a4) return { name: 'MATHEMATICAL ITALIC SMALL DOTLESS I', looksLike: 'i', class: 'always' };
  if (codePoint === 0x1d6a5) return { name: 'MATHEMATICAL ITALIC SMALL DOTLESS J', looksLike: 'j', class: 'always' };
  if (codePoint >= 0x1d7ce && codePoint <= 0x1d7ff) {
    const offset = codePoint - 0x1d7ce;
    const digit = offset % 10;
    return {
      name: `MATHEMATICAL ${MATH_DIGITS[Math.floor(offset / 10)]} DIGIT ${DIGIT_NAMES[digit]}`,
      looksLike: String(digit),
      class: 'always',
    };
  }
  return undefined;
}

/** What a character passes for, if it is a look-alike of an ASCII letter, digit or separator. */
export function lookalikeInfo(codePoint: number): LookalikeInfo | undefined {
  const known = TABLE.get(codePoint);
  if (known) return known;
  // Fullwidth forms U+FF01–U+FF5E are ASCII U+0021–U+007E, one for one.
  if (codePoint >= 0xff01 && codePoint <= 0xff5e) {
    const ch = String.fromCharCode(codePoint - 0xfee0);
    return { name: `FULLWIDTH ${asciiName(ch)}`, looksLike: ch, class: 'width' };
  }
  return mathLookalike(codePoint);
}
