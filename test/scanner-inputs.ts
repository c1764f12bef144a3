import { textFlags } from '@/lib/proposals/flags';
import { suspiciousPhrases } from '@/lib/proposals/suspicious';
import { hiddenCharacterIndexes } from '@/lib/text/invisible';
import { findLookalikes, skeleton } from '@/lib/text/lookalike';
import { visibleSegments } from '@/lib/text/visible';

/**
 * The worst inputs for the scanners of untrusted text (lib/text, lib/proposals/suspicious.ts):
 * runs of separators, look-alikes, hidden characters and role markers, as 64 KiB texts and as the
 * same characters in eight 8 KiB texts. Used by lib/proposals/scanners.test.ts (which counts the
 * scanners' steps) and scripts/bench/scanners.ts (which times them, regular expressions included).
 */

export const LONG = 64 * 1024;
export const SHORT = LONG / 8;

/** `unit` repeated to exactly `length` code units (never ending on half of a surrogate pair). */
export function fill(unit: string, length: number): string {
  const text = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
  const last = text.charCodeAt(text.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? `${text.slice(0, -1)} ` : text;
}

export const MARKERS = [
  'system',
  'system:',
  'assistant',
  'developer',
  '\nsystem',
  '.system',
  '. system ',
  'system\n',
  'system \t',
  'ignore',
  'ignore ',
  'ignore all ',
  'ignore your ',
  'ignore all of ',
  'disregard the ',
  'you are now ',
  'act as ',
  'as an ',
  'as a large ',
  'admin',
  'admin ',
  'admin = ',
  'retry with ',
  'do not ',
  'do not tell ',
  'skip the ',
  'skipping any human ',
  'without any human ',
  'hidden ',
  '<',
  '< ',
  '<\\|',
  '<|im_start',
  '[INST',
  '[/',
  '<<SYS',
  'javascript',
  'javascript ',
  'onerror ',
  'on',
];

/** Runs of separators, look-alikes and hidden characters: the worst inputs for a scanner of characters. */
export const CHARACTERS: [string, string][] = [
  ['newlines', '\n'],
  ['newline, space, tab', '\n \t'],
  ['spaces', ' '],
  ['a word', 'a'],
  ['look-alike role markers', '\nѕуѕtеm'],
  ['Cyrillic look-alikes', 'а'],
  ['look-alikes inside Latin words', 'pаypаl '],
  ['fullwidth letters', 'ｓｙｓｔｅｍ'],
  ['mathematical letters', '𝐬𝐲𝐬𝐭𝐞𝐦 '],
  ['zero-width spaces', '\u200b'],
  ['zero-width inside a marker', 's\u200by\u200bs\u200bt\u200be\u200bm\u200b\n'],
  ['zero width joiners between pictographs', '👩\u200d'],
  ['variation selectors', '\ufe0f'],
  ['a pictograph then variation selectors', `❤${'\ufe0f'.repeat(32)}\u200d`],
  ['a black flag then tags', `🏴${'\u{e0061}'.repeat(16)}`],
  ['tag characters', '\u{e0073}\u{e0079}\u{e0073}'],
  ['bidi overrides and C0 controls', '\u202e\u202d\u0001\u001b'],
  ['mixed', '\n \tsystem а\u200b<|[INST ignore all 👩\u200d\ufe0f🏴\u{e0061}. '],
];

/** For the patterns: every marker repeated, and each marker followed by a run of whitespace. */
export const PATTERN_INPUTS: [string, string][] = [
  ...CHARACTERS,
  ['carriage returns and line feeds', '\r\n'],
  ['full stops and spaces', '. '],
  ['question marks and newlines', '?\n'],
  ['no-break spaces', '\u00a0'],
  ['ideographic spaces', '\u3000'],
  ['underscores', '_'],
  ...MARKERS.map((marker): [string, string] => [`"${marker}" repeated`, marker]),
  ...MARKERS.map((marker): [string, string] => [
    `"${marker}" then newlines and spaces`,
    `${marker}${'\n \t'.repeat(64)}`,
  ]),
];

/** A scanner's name, the function, and the inputs (name, repeated unit) it is fed. */
export type Scanner = [string, (text: string) => unknown, [string, string][]];

/** The scanners that read text character by character, each fed every run of CHARACTERS. */
export const CHARACTER_SCANNERS: Scanner[] = [
  ['suspiciousPhrases', suspiciousPhrases, CHARACTERS],
  ['skeleton', skeleton, CHARACTERS],
  ['findLookalikes', findLookalikes, CHARACTERS],
  ['hiddenCharacterIndexes', hiddenCharacterIndexes, CHARACTERS],
  ['visibleSegments', (text) => visibleSegments(text, { multiline: true }), CHARACTERS],
  [
    'textFlags on an argument and an evidence text',
    (text) => textFlags({ reason: text }, [{ id: 'ticket_1', kind: 'support_ticket', text }]),
    CHARACTERS,
  ],
];
