import type { Facts } from '@/db/schema';
/**
 * A proposal's facts read again when someone looks at it (POST /api/v1/proposals/{id}/recheck):
 * the facts at proposal beside the facts now, and what that check came to. Type imports only:
 * client components use it.
 */

/**
 * `fresh`: read now, nothing moved. `changed`: the resource moved but the proposal still holds.
 * `stale`: it no longer holds (the check ended it). `unavailable`: the system of record did not
 * answer in time (nothing changed). `closed`: not pending any more, nothing was read.
 */
export const FRESH_STATES = ['fresh', 'changed', 'stale', 'unavailable', 'closed'] as const;
export type FreshState = (typeof FRESH_STATES)[number];

export type FactsSnapshot = {
  /** One line in words ("ord_1842 in acme, charged 49.99 USD, 49.99 USD not yet refunded"), or null when not known. */
  detail: string | null;
  facts: Facts;
};

export type FreshFacts = {
  proposalId: string;
  state: FreshState;
  /** When the system of record was asked (ISO). */
  checkedAt: string;
  /** As read at intake, when it was proposed. */
  atProposal: FactsSnapshot & { at: string };
  /** As read at `checkedAt`; null when nothing was read (unavailable, closed). */
  now: FactsSnapshot | null;
  /** In words: what moved (changed), why it no longer holds (stale), or what could not be read (unavailable). */
  note: string | null;
};

/**
 * Whether `a` may approve in one key: the check answered, nothing moved, the proposal holds. Any
 * other answer, or none yet, stops at the approve dialog, which shows why.
 */
export function freshAndClear(facts: Pick<FreshFacts, 'state'> | undefined): boolean {
  return facts?.state === 'fresh';
}

/** Why `a` stopped at the dialog, in words, for the dialog and the preview. */
export function freshWords(facts: Pick<FreshFacts, 'state' | 'note'> | undefined): string {
  if (!facts) return 'Checking the facts with the system of record…';
  switch (facts.state) {
    case 'fresh':
      return 'Checked just now with the system of record: nothing changed since it was proposed.';
    case 'changed':
      return `Changed since proposed: ${facts.note ?? 'the facts moved'}; it still holds.`;
    case 'stale':
      return `No longer holds: ${facts.note ?? 'the facts moved'}. It is now stale.`;
    case 'unavailable':
      return 'The system of record did not answer in time: the facts could not be checked just now.';
    case 'closed':
      return 'No longer pending: the facts are not read again.';
  }
}
