import { lookalikeInfo } from './characters';
import { isInvisible } from './invisible';
import { step } from './scan-steps';
import { CGJ, streamSafe } from './stream-safe';

/**
 * Look-alikes of ASCII in untrusted text: characters that pass for a Latin letter, digit or
 * separator (Cyrillic а for a, fullwidth ｏ, mathematical 𝐚) — what a spoofed order id, SKU or
 * instruction is made of. Ordinary text in other scripts is not a look-alike: a Cyrillic or Greek
 * letter counts only inside a word that also has Latin letters, or when every such letter of a
 * Latin text is one (a whole word spelled in look-alikes); fullwidth forms only outside CJK text or
 * inside a Latin word. é, ü, €, £, ×, ·, —, emoji and CJK are never look-alikes. No imports beyond
 * lib/text: client components use it.
 */

export type Lookalike = {
  /** Code unit offsets in the string: value.slice(start, end) is the character. */
  start: number;
  end: number;
  codePoint: number;
  /** Its Unicode name ("CYRILLIC SMALL LETTER A"). */
  name: string;
  /** The ASCII it passes for ("a"). */
  looksLike: string;
};

const OTHER_SCRIPT_LETTER = /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}\u3000-\u303f]/u;
const WORD = /[\p{L}\p{M}\p{N}_]/u;
const LATIN_LETTER = /[A-Za-z]/;

/** Every look-alike character of the value, in order. */
export function findLookalikes(value: string): Lookalike[] {
  const chars: { ch: string; start: number; codePoint: number; word: number }[] = [];
  let offset = 0;
  let word = 0;
  let inWord = false;
  // Every pattern here reads one character at a time: no run of the text reaches the engine whole.
  let hasCjk = false;
  for (const ch of value) {
    step();
    const codePoint = ch.codePointAt(0)!;
    // Invisible characters do not split a word: "о\u200Brder" is still one word.
    const wordChar = WORD.test(ch) || isInvisible(codePoint);
    if (wordChar && !inWord) word += 1;
    inWord = wordChar;
    hasCjk ||= CJK.test(ch);
    chars.push({ ch, start: offset, codePoint, word: wordChar ? word : -1 });
    offset += ch.length;
  }
  if (!chars.some(({ codePoint }) => codePoint > 0x7e)) return [];

  const latinLetters = chars.filter(({ ch }) => step() && LATIN_LETTER.test(ch));
  const latinWords = new Set(latinLetters.filter(({ word: w }) => w >= 0).map(({ word: w }) => w));
  // A Latin text whose other-script letters are all look-alikes spells a word to pass for Latin
  // ("Approved by сео"); a real Cyrillic or Greek phrase has letters that look like nothing Latin.
  const otherLetters = chars.filter(({ ch }) => step() && OTHER_SCRIPT_LETTER.test(ch) && /\p{L}/u.test(ch));
  const spelledInLookalikes =
    latinLetters.length > 0 &&
    otherLetters.length > 0 &&
    otherLetters.every(({ codePoint }) => step() && lookalikeInfo(codePoint)?.class === 'script');

  const found: Lookalike[] = [];
  for (const { ch, start, codePoint, word: w } of chars) {
    step();
    if (codePoint <= 0x7e) continue;
    const info = lookalikeInfo(codePoint);
    if (!info) continue;
    const inLatinWord = w >= 0 && latinWords.has(w);
    const counts =
      info.class === 'always' ||
      (info.class === 'script' && (inLatinWord || spelledInLookalikes)) ||
      (info.class === 'width' && (inLatinWord || !hasCjk));
    if (counts) found.push({ start, end: start + ch.length, codePoint, name: info.name, looksLike: info.looksLike });
  }
  return found;
}

const isLayout = (codePoint: number) => codePoint === 0x0a || codePoint === 0x09 || codePoint === 0x0d;

/** The text without its invisible characters (layout kept). */
function withoutInvisible(value: string): string {
  let out = '';
  for (const ch of value) {
    step();
    const codePoint = ch.codePointAt(0)!;
    if (isLayout(codePoint) || !isInvisible(codePoint)) out += ch;
  }
  return out;
}

/**
 * The text as it reads: invisible characters dropped, compatibility forms folded (NFKC: fullwidth
 * and mathematical letters become ASCII) and look-alike letters replaced by what they pass for.
 * What the suspicious-text patterns are matched against, so "Ignоre yоur ru\u200Bles" still reads
 * as "Ignore your rules". Stream-safe before NFKC (lib/text/stream-safe.ts): NFKC of a long run of
 * combining marks is quadratic. The agent's invisible characters go first, so none of them is a
 * CGJ when the format inserts its own; those stay (inside a run of marks they split no word), or
 * dropping them would join the runs they cut for the patterns to read.
 */
export function skeleton(value: string): string {
  let out = '';
  for (const ch of streamSafe(withoutInvisible(value)).text.normalize('NFKC')) {
    step();
    const codePoint = ch.codePointAt(0)!;
    if (ch === CGJ || isLayout(codePoint)) out += ch;
    // No visible character folds to an invisible one in Unicode 17 (every code point checked); in case a later version
    // adds one.
    else if (isInvisible(codePoint)) continue;
    else out += lookalikeInfo(codePoint)?.looksLike ?? ch;
  }
  return out;
}
