import { describe, expect, it } from 'vitest';
import { alreadyWords, decisionResultWords, payloadTitle, urgencyOf } from './words';

describe('payloadTitle says what the payload is for in the proposal’s state', () => {
  it.each([
    ['pending_approval', 'What will run'],
    ['approved', 'What will run'],
    ['executing', 'What ran'],
    ['succeeded', 'What ran'],
    ['failed', 'What ran'],
    ['outcome_unknown', 'What ran'],
    ['rejected', 'What was proposed (it did not run)'],
    ['expired', 'What was proposed (it did not run)'],
    ['stale', 'What was proposed (it did not run)'],
    ['cancelled', 'What was proposed (it did not run)'],
  ])('%s → %s', (status, title) => expect(payloadTitle(status)).toBe(title));
});

describe('decisionResultWords never repeats itself', () => {
  it.each([
    ['approve', 'approved', 'approved'],
    ['reject', 'rejected', 'rejected'],
    ['approve', 'executing', 'approved · now executing'],
    ['approve', 'outcome_unknown', 'approved · now outcome unknown'],
    ['reject', 'stale', 'rejected · now stale'],
  ] as const)('%s leading to %s reads "%s"', (decision, status, words) =>
    expect(decisionResultWords(decision, status)).toBe(words),
  );
});

describe('alreadyWords says where a proposal is in a sentence', () => {
  it.each([
    ['succeeded', 'This proposal already ran: it was approved and succeeded'],
    ['approved', 'This proposal was already approved'],
    ['outcome_unknown', 'This proposal was already approved and ran; its outcome is being checked'],
    ['stale', 'This proposal already went stale'],
    ['something_new', 'This proposal is already something new'],
  ])('%s', (status, words) => expect(alreadyWords(status)).toBe(words));
});

describe('urgencyOf: under 1 h a warning, under 10 min danger', () => {
  const minute = 60_000;
  it.each([
    [23 * 60 * minute, 'calm'],
    [60 * minute, 'calm'],
    [59 * minute, 'warning'],
    [10 * minute, 'warning'],
    [10 * minute - 1, 'danger'],
    [0, 'danger'],
    [-minute, 'danger'],
  ])('%d ms left is %s', (ms, urgency) => expect(urgencyOf(ms)).toBe(urgency));
});
