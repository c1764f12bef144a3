/**
 * The text part of `npm run bench` (`--only text`; issue 35): the whole pipeline an untrusted text
 * goes through — intake's text flags (budget, Stream-Safe Text Format, NFKC skeleton, phrase
 * patterns, hidden and look-alike characters) and the rendering a reviewer's page does — timed per
 * character on runs of each hostile Unicode class (test/hostile-text.ts) at 1k, 8k and 64k
 * characters. Each measure covers 64k characters (64 texts of 1k, 8 of 8k, one of 64k), fastest of
 * a few rounds; linear is a flat ns/char, quadratic grows 8× per step. Then the issue's case: twenty
 * evidence texts of 20,000 alternating combining marks, through textFlags, beside the same size of
 * plain text and beside what `normalize('NFKC')` alone took on them before (the old skeleton).
 * No database, no server: CPU only, a few seconds.
 */
import { MAX_EVIDENCE_TEXT_CHARS } from '@/lib/gates/evidence';
import { MAX_EVIDENCE_REFS } from '@/lib/input/envelope';
import { SCAN_BUDGET_CHARS, textFlags } from '@/lib/proposals/flags';
import { visibleSegments } from '@/lib/text/visible';
import { HOSTILE_CLASSES } from '@/test/hostile-text';
import { fill } from '@/test/scanner-inputs';
import { fastest } from './fastest';

export const TEXT_SIZES = [1_024, 8 * 1_024, 64 * 1_024] as const;
const COVERED = 64 * 1_024;
/** Flat means the 64k figure within this multiple of the 1k one (quadratic would be 64×). */
export const FLAT_LIMIT = 2;

const PLAIN = 'Please refund order 1842, it arrived damaged. ';
const CLASSES: Record<string, string[]> = { 'plain ASCII': [PLAIN], ...HOSTILE_CLASSES };

export type TextRow = { name: string; nsPerChar: Record<number, number>; ratio: number };
/** normalizeBeforeMs: left out of --short (it is the slow old way, seconds on its own). */
export type IssueCase = { hostileMs: number; plainMs: number; normalizeBeforeMs?: number; chars: number };
export type TextResult = {
  rows: TextRow[];
  issueCase: IssueCase;
  targets: { name: string; pass: boolean; measured: string }[];
  markdown: string;
};

const pipeline = (text: string) => {
  textFlags({ reason: text }, []);
  visibleSegments(text, { multiline: true });
};

function issueCase(rounds: number, before: boolean): IssueCase {
  const marks = `a${fill('\u0301\u0316', MAX_EVIDENCE_TEXT_CHARS - 1)}`;
  const plain = fill(PLAIN, MAX_EVIDENCE_TEXT_CHARS);
  const tickets = (text: string) =>
    Array.from({ length: MAX_EVIDENCE_REFS }, (_, i) => ({ id: `ticket_${i}`, kind: 'support_ticket', text }));
  const args = { sku: 'filter-blue', quantity: 1 };
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    chars: MAX_EVIDENCE_REFS * MAX_EVIDENCE_TEXT_CHARS,
    hostileMs: round(fastest(() => textFlags(args, tickets(marks)), rounds)),
    plainMs: round(fastest(() => textFlags(args, tickets(plain)), rounds)),
    // What the old skeleton did first, for every text: NFKC of the whole run (one round: it is slow).
    normalizeBeforeMs: before
      ? round(fastest(() => tickets(marks).forEach(({ text }) => text.normalize('NFKC')), 1))
      : undefined,
  };
}

export function measureText(options: { rounds: number; short: boolean; progress: (text: string) => void }): TextResult {
  const rows: TextRow[] = [];
  for (const [name, units] of Object.entries(CLASSES)) {
    const texts = TEXT_SIZES.map((size) => fill(units.join(''), size));
    texts.forEach(pipeline);
    // The sizes take turns within each round, so a change in the machine's load falls on all three.
    const best = TEXT_SIZES.map(() => Infinity);
    for (let round = 0; round < options.rounds; round += 1) {
      texts.forEach((text, index) => {
        best[index] = Math.min(
          best[index]!,
          fastest(() => {
            for (let i = 0; i < COVERED / text.length; i += 1) pipeline(text);
          }, 1),
        );
      });
    }
    const nsPerChar: Record<number, number> = {};
    TEXT_SIZES.forEach((size, index) => (nsPerChar[size] = Math.round((best[index]! * 1e6) / COVERED)));
    const ratio = Math.round((nsPerChar[TEXT_SIZES[2]]! / nsPerChar[TEXT_SIZES[0]]!) * 100) / 100;
    rows.push({ name, nsPerChar, ratio });
    options.progress(
      `Text pipeline · ${name}: ` +
        `${TEXT_SIZES.map((size) => `${nsPerChar[size]} ns/char at ${size / 1_024}k`).join(', ')} (${ratio}×)`,
    );
  }
  const found = issueCase(options.rounds, !options.short);
  const nfkcBefore =
    found.normalizeBeforeMs === undefined ? '' : `; NFKC alone on them, as before: ${found.normalizeBeforeMs} ms`;
  options.progress(
    `Text pipeline · 20 × 20,000 alternating marks: ${found.hostileMs} ms ` +
      `(plain text ${found.plainMs} ms${nfkcBefore})`,
  );
  const worst = rows.reduce((max, row) => (row.ratio > max.ratio ? row : max), rows[0]!);
  const targets = [
    {
      name: `text pipeline flat from 1k to 64k characters (≤ ${FLAT_LIMIT}× per character) for every class`,
      pass: worst.ratio <= FLAT_LIMIT,
      measured: `worst ${worst.ratio}× (${worst.name})`,
    },
    {
      // Not 1×: a mark costs more than an ASCII letter (its decomposition is looked up); before the fix, NFKC alone was
      // over 60×.
      name: '20 evidence texts of 20,000 alternating marks within 4× of plain text of the same size',
      pass: found.hostileMs <= 4 * found.plainMs,
      measured: `${found.hostileMs} ms vs plain ${found.plainMs} ms`,
    },
  ];
  const tableRows = rows.map(
    (row) => `| ${row.name} | ${TEXT_SIZES.map((size) => row.nsPerChar[size]).join(' | ')} | ${row.ratio}× |`,
  );
  const skeletonBefore =
    found.normalizeBeforeMs === undefined
      ? ''
      : `; \`normalize('NFKC')\` alone on those texts, as the skeleton did before: ${found.normalizeBeforeMs} ms`;
  const markdown =
    `### Text pipeline (issue 35)

textFlags + visibleSegments, ns per character (fastest of ${options.rounds} rounds, the sizes taking turns; each ` +
    `measure 64k characters):

| Class | 1k | 8k | 64k | 64k ÷ 1k |
| --- | --- | --- | --- | --- |
${tableRows.join('\n')}

Twenty evidence texts of 20,000 alternating U+0301/U+0316 (${found.chars.toLocaleString('en-US')} characters cited; ` +
    `the budget reads ${SCAN_BUDGET_CHARS.toLocaleString('en-US')}): textFlags ${found.hostileMs} ms, the same ` +
    `size of plain text ${found.plainMs} ms${skeletonBefore}.
`;
  return { rows, issueCase: found, targets, markdown };
}
