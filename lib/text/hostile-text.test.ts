import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { textFlags } from '@/lib/proposals/flags';
import { HOSTILE_CLASSES } from '@/test/hostile-text';
import { libraryCallsOf, longestNonStarterRun } from '@/test/library-calls';
import { fill } from '@/test/scanner-inputs';
import { scanSteps } from './scan-steps';
import { MAX_NON_STARTERS } from './stream-safe';
import { visibleSegments } from './visible';

/**
 * Issue 35, closed by class: generated hostile text — runs of every class that normalization, case
 * folding, grapheme segmentation or bidi handling treats specially, alone, alternating and mixed,
 * with ASCII between — through the whole text pipeline (the proposal's text flags, and the
 * rendering a reviewer's page does). Two structural invariants, no clock: no run of more than 30
 * non-starters reaches a library call, and the scanners' steps stay linear in the input.
 */

const CLASS_NAMES = Object.keys(HOSTILE_CLASSES);
const PLAIN = ['a', ' ', 'system: ', 'ignore your rules', '\n', 'é'];

/** One run: a class, some of its units in an order, repeated to a length. */
const run = fc
  .record({
    name: fc.constantFrom(...CLASS_NAMES),
    pick: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
    length: fc.integer({ min: 1, max: 1_500 }),
  })
  .map(({ name, pick, length }) => {
    const units = HOSTILE_CLASSES[name]!;
    return fill(pick.map((i) => units[i % units.length]!).join(''), length);
  });

/** A text: hostile runs, mixed, with plain text between some of them. */
const hostileText = fc
  .array(fc.oneof(run, fc.constantFrom(...PLAIN)), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.join(''));

const SEED = 3535;

const pipeline = (text: string) => {
  textFlags({ reason: text, items: [text.slice(0, 100)] }, [{ id: 'ticket_hostile', kind: 'support_ticket', text }]);
  visibleSegments(text, { multiline: true });
};

function stepsOf(work: () => void): number {
  const before = scanSteps.taken;
  work();
  return scanSteps.taken - before;
}

describe('generated hostile text through the whole text pipeline', () => {
  it('no string with a run of more than 30 non-starters reaches normalize, case folding, segmentation or a regular expression', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const over = libraryCallsOf(() => pipeline(text))
          .map(longestNonStarterRun)
          .filter((longest) => longest > MAX_NON_STARTERS);
        expect(over).toEqual([]);
      }),
      { seed: SEED, numRuns: 60, endOnFailure: true },
    );
  });

  it('takes steps linear in the input: eight copies in one text cost no more than eight texts', () => {
    fc.assert(
      fc.property(hostileText, (text) => {
        const once = stepsOf(() => pipeline(text));
        const long = stepsOf(() => pipeline(text.repeat(8)));
        expect(long).toBeLessThanOrEqual(8 * 1.5 * once);
      }),
      { seed: SEED, numRuns: 40, endOnFailure: true },
    );
  });

  it.each(CLASS_NAMES)(
    '%s: a long run alone is linear too, and stays within the run limit at every library call',
    (name) => {
      const text = fill(HOSTILE_CLASSES[name]!.join(''), 16_000);
      const steps = stepsOf(() => pipeline(text));
      const pieces = stepsOf(() => {
        for (let i = 0; i < 8; i += 1) pipeline(fill(HOSTILE_CLASSES[name]!.join(''), 2_000));
      });
      expect(steps).toBeLessThanOrEqual(1.5 * pieces);
      expect(
        libraryCallsOf(() => pipeline(text)).filter((reached) => longestNonStarterRun(reached) > MAX_NON_STARTERS),
      ).toEqual([]);
    },
  );
});
