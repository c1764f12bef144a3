import { lookalikeInfo } from './characters';
import { codePointName, isInvisible } from './invisible';
import { findLookalikes } from './lookalike';
import { step } from './scan-steps';
import { MAX_NON_STARTERS, nonStarters } from './stream-safe';

export { codePointName, isInvisible } from './invisible';

/**
 * How untrusted text is made visible: invisible and direction-changing characters (zero-width,
 * bidi overrides and isolates, variation selectors, tags, C0/C1 controls) become named marks
 * (⟦U+202E⟧), so nothing an agent sends can hide text or reorder what a reviewer reads; a run of
 * more combining marks than Stream-Safe Text allows (lib/text/stream-safe.ts) becomes one mark
 * naming its length (⟦80 combining marks⟧), the same run the flags call hidden text, instead of a
 * smear over the letter it stacks on; and look-alikes of ASCII (lib/text/lookalike.ts) are named
 * beside the run they are in.
 */

/** Layout characters a multi-line block (pretty JSON, a body as received) keeps as layout. */
const LAYOUT = new Set([0x0a, 0x09]);

/** One look-alike character of a run: its mark (`U+0430`), name and what it passes for. */
export type LookalikeChar = { mark: string; name: string; looksLike: string };

export type Segment = { text: string } | { mark: string } | { lookalike: string; chars: LookalikeChar[] };

/**
 * The text cut into plain runs, marks and look-alike runs (consecutive look-alikes, shown as
 * themselves and named after); with `multiline`, newlines and tabs stay layout.
 */
export function visibleSegments(value: string, options: { multiline?: boolean } = {}): Segment[] {
  const lookalikeStarts = new Set(findLookalikes(value).map((found) => found.start));
  const segments: Segment[] = [];
  let plain = '';
  let offset = 0;
  // The combining marks met since the last starter, and how many non-starters they count.
  let marks = '';
  let run = 0;
  const flushPlain = () => {
    if (plain) segments.push({ text: plain });
    plain = '';
  };
  const flushMarks = () => {
    if (run > MAX_NON_STARTERS) {
      flushPlain();
      segments.push({ mark: `${run} combining marks` });
    } else {
      plain += marks;
    }
    marks = '';
    run = 0;
  };
  for (const ch of value) {
    step();
    const codePoint = ch.codePointAt(0)!;
    const start = offset;
    offset += ch.length;
    const decomposition = nonStarters(ch);
    if (decomposition.allNonStarters && !isInvisible(codePoint) && !lookalikeStarts.has(start)) {
      marks += ch;
      run += decomposition.leading;
      continue;
    }
    flushMarks();
    if (isInvisible(codePoint) && !(options.multiline && LAYOUT.has(codePoint))) {
      flushPlain();
      segments.push({ mark: codePointName(codePoint) });
    } else if (lookalikeStarts.has(start)) {
      flushPlain();
      const info = lookalikeInfo(codePoint)!;
      const char: LookalikeChar = { mark: codePointName(codePoint), name: info.name, looksLike: info.looksLike };
      const last = segments.at(-1);
      if (last && 'lookalike' in last) {
        last.lookalike += ch;
        if (!last.chars.some((known) => step() && known.mark === char.mark)) last.chars.push(char);
      } else {
        segments.push({ lookalike: ch, chars: [char] });
      }
    } else {
      plain += ch;
    }
  }
  flushMarks();
  flushPlain();
  return segments;
}

/** For places that take plain text only (an option, a title, an accessible name): marks inline. */
export function visibleText(value: string): string {
  return visibleSegments(value)
    .map((segment) => ('mark' in segment ? `⟦${segment.mark}⟧` : 'text' in segment ? segment.text : segment.lookalike))
    .join('');
}

/** A resource key (`order:ord_1842`) as words: "order ord_1842", anything hidden in it made visible. */
export function resourceWords(resourceKey: string): string {
  return visibleText(resourceKey.replace(':', ' '));
}
