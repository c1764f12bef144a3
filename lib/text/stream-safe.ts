import { step } from './scan-steps';

/**
 * Unicode's Stream-Safe Text Format (UAX #15 §13): no run of more than 30 non-starters (characters
 * of non-zero canonical combining class, counted in the NFKD decomposition). Normalization reorders
 * a run of non-starters by an insertion sort, so a run alternating two classes (U+0301, U+0316) costs
 * time quadratic in its length — 64 K such marks took 0.9 s in `normalize('NFKC')`, eight times the
 * same marks in 8 K pieces (issue 35). Every library call on untrusted text (normalization, case
 * folding, segmentation, patterns with Unicode properties) gets the text through `streamSafe` first.
 * No imports beyond lib/text: client components use it.
 */

/** The longest run of non-starters a stream-safe text has (UAX #15 §13). */
export const MAX_NON_STARTERS = 30;

/** COMBINING GRAPHEME JOINER: a starter that renders as nothing, what the format inserts to cut a run. */
export const CGJ = '\u034f';

/**
 * U+0334 COMBINING TILDE OVERLAY has the lowest non-zero class (1); U+0345 YPOGEGRAMMENI the highest (240, alone in
 * it).
 */
const LOWEST_CLASS_MARK = '\u0334';
const HIGHEST_CLASS_MARK = '\u0345';

/**
 * Whether one fully decomposed character has a non-zero canonical combining class, asked of the
 * very normalizer this format protects rather than of a table: normalization swaps two adjacent
 * non-starters exactly when the first has the higher class, so a character after U+0345 (class
 * 240) moves before it when its class is 1–239, and one before U+0334 (class 1) moves after it
 * when its class is 2–240. Two strings of two characters: constant time each, and the answer is
 * always from the same Unicode version as the normalizer (no npm table to fall behind Node's ICU:
 * unicode-properties is at Unicode 13, Node 24 at 17).
 */
function isNonStarter(ch: string): boolean {
  const after = HIGHEST_CLASS_MARK + ch;
  const before = ch + LOWEST_CLASS_MARK;
  return after.normalize('NFD') !== after || before.normalize('NFD') !== before;
}

export type Decomposition = { leading: number; trailing: number; allNonStarters: boolean };

const STARTER: Decomposition = { leading: 0, trailing: 0, allNonStarters: false };

function decompose(ch: string): Decomposition {
  const parts = [...ch.normalize('NFKD')].map(isNonStarter);
  const leading = parts.indexOf(false);
  if (leading === -1) return { leading: parts.length, trailing: parts.length, allNonStarters: true };
  return { leading, trailing: parts.length - 1 - parts.lastIndexOf(false), allNonStarters: false };
}

/** Answers kept for the characters met lately: a text repeats few distinct ones. Emptied when full, so bounded. */
const known = new Map<string, Decomposition>();
const KNOWN_LIMIT = 4_096;

/** The non-starters at the start and end of one character's NFKD decomposition (a few characters at most). */
export function nonStarters(ch: string): Decomposition {
  // ASCII is its own decomposition, all of class 0 (Unicode's stability policy keeps it so).
  if (ch.charCodeAt(0) < 0x80) return STARTER;
  let found = known.get(ch);
  if (!found) {
    if (known.size >= KNOWN_LIMIT) known.clear();
    found = decompose(ch);
    known.set(ch, found);
  }
  return found;
}

export type StreamSafe = {
  /** The text with a CGJ before any non-starter that would make a run longer than MAX_NON_STARTERS. */
  text: string;
  /**
   * The longest run of combining marks in the text as sent — non-starters, with a CGJ the text
   * already had counted as part of the run (marks after it still stack on the same letter).
   */
  longestRun: number;
};

/**
 * The text in Stream-Safe Text Format, by the algorithm of UAX #15 §13: one pass, a CGJ inserted
 * before a character whose leading non-starters would take the run over 30. Linear in the text.
 */
export function streamSafe(value: string): StreamSafe {
  const pieces: string[] = [];
  let cut = 0;
  let offset = 0;
  let run = 0;
  let marks = 0;
  let longestRun = 0;
  for (const ch of value) {
    step();
    if (ch === CGJ) {
      run = 0;
    } else {
      const { leading, trailing, allNonStarters } = nonStarters(ch);
      if (run + leading > MAX_NON_STARTERS) {
        pieces.push(value.slice(cut, offset), CGJ);
        cut = offset;
        run = 0;
      }
      run = allNonStarters ? run + leading : trailing;
      longestRun = Math.max(longestRun, marks + leading);
      marks = allNonStarters ? marks + leading : trailing;
    }
    offset += ch.length;
  }
  pieces.push(value.slice(cut));
  return { text: pieces.join(''), longestRun: Math.max(longestRun, marks) };
}
