/**
 * `npx tsx scripts/bench/scanners.ts`: how much longer each scanner of untrusted text takes on one
 * 64 KiB text than on the same characters as eight 8 KiB texts, on its worst inputs (fastest of
 * three rounds each). Linear is about 1×; quadratic in a run of the input, about 8×. The unit test
 * (lib/proposals/scanners.test.ts) counts the steps of our own loops instead; only a time shows the
 * regular expressions' work, so the phrase patterns are measured here. A report, not a gate: it
 * prints every ratio and marks those at 4× or more.
 */
import { PHRASE_FINDERS } from '@/lib/proposals/suspicious';
import { CHARACTER_SCANNERS, fill, LONG, PATTERN_INPUTS, type Scanner, SHORT } from '@/test/scanner-inputs';
import { fastest } from './fastest';

const SCANNERS: Scanner[] = [
  ...PHRASE_FINDERS.map(({ name, find }): Scanner => [`the "${name}" pattern`, find, PATTERN_INPUTS]),
  ...CHARACTER_SCANNERS,
];

let slow = 0;
for (const [name, scan, inputs] of SCANNERS) {
  let worst = { input: '', ratio: 0 };
  for (const [input, unit] of inputs) {
    const long = fill(unit, LONG);
    const short = fill(unit, SHORT);
    scan(short);
    const ratio =
      fastest(() => scan(long)) /
      Math.max(
        fastest(() => {
          for (let i = 0; i < LONG / SHORT; i += 1) scan(short);
        }),
        0.05,
      );
    if (ratio >= 4) slow += 1;
    if (ratio > worst.ratio) worst = { input, ratio };
  }
  console.log(
    `${worst.ratio >= 4 ? 'SLOW' : 'ok  '} ${name}: worst ${worst.ratio.toFixed(1)}× on ${JSON.stringify(worst.input)}`,
  );
}
console.log(
  slow === 0 ? 'every scanner about linear' : `${slow} input(s) at 4× or more: look at the scanner named SLOW`,
);
