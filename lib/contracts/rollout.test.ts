import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ActionModule, ContractStatus } from '@/lib/actions/types';
import { zodContract } from '@/lib/actions/zod-contract';
import { CONTRACT_STATUSES, exactlyOneCurrent, planTransition, withRollout } from './rollout';

const args = z.strictObject({});
const NOW = new Date('2031-01-01T00:00:00Z');
const LATER = new Date('2031-02-01T00:00:00Z');

/** An action whose v2 has `status` beside v1 current (v1 itself when `status` is current). */
function actionWith(status: ContractStatus, sunsetAt: Date | null = null): ActionModule {
  const contracts =
    status === 'current'
      ? [zodContract(1, 'supported', args), zodContract(2, 'current', args)]
      : [zodContract(1, 'current', args), { ...zodContract(2, status, args), sunsetAt }];
  return { name: 'probe', contracts } as Pick<ActionModule, 'name' | 'contracts'> as ActionModule;
}

describe('the rollout state machine (version 2 moving, version 1 beside it)', () => {
  const allowed: Record<ContractStatus, ContractStatus[]> = {
    shadow: ['current', 'supported', 'retired', 'shadow'],
    supported: ['current', 'retired', 'supported'],
    retired: ['shadow', 'supported', 'retired'],
    current: ['current'],
  };
  const refusals: Record<string, string> = {
    'current→supported': 'cannot_demote_current',
    'current→shadow': 'cannot_demote_current',
    'current→retired': 'cannot_retire_current',
    'retired→current': 'retired_needs_reinstatement',
    'supported→shadow': 'invalid_transition',
  };
  for (const from of CONTRACT_STATUSES) {
    for (const to of CONTRACT_STATUSES) {
      it(`${from} → ${to}: ${allowed[from].includes(to) ? 'allowed' : refusals[`${from}→${to}`]}`, () => {
        const plan = planTransition(actionWith(from), 2, { status: to }, NOW);
        if (allowed[from].includes(to)) {
          expect(plan.ok).toBe(true);
          if (!plan.ok) return;
          // Applying the plan keeps exactly one current version.
          const rows = plan.changes.map((change) => ({
            action: 'probe',
            version: change.version,
            status: change.status,
            sunsetAt: change.sunsetAt,
            updatedAt: NOW,
          }));
          expect(exactlyOneCurrent(withRollout(actionWith(from), rows))).toBe(true);
        } else {
          expect(plan).toMatchObject({ ok: false, error: { status: 409, code: refusals[`${from}→${to}`] } });
        }
      });
    }
  }

  it('a promotion demotes the old current to supported, without a sunset', () => {
    expect(planTransition(actionWith('shadow'), 2, { status: 'current' }, NOW)).toEqual({
      ok: true,
      from: 'shadow',
      demoted: 1,
      changes: [
        { version: 1, status: 'supported', sunsetAt: null, statusChanged: true },
        { version: 2, status: 'current', sunsetAt: null, statusChanged: true },
      ],
    });
  });

  it('a sunset belongs to a supported version, in the future; the same request again changes nothing', () => {
    expect(planTransition(actionWith('shadow'), 2, { status: 'shadow', sunsetAt: LATER }, NOW)).toMatchObject({
      ok: false,
      error: { status: 422, code: 'sunset_requires_supported' },
    });
    expect(planTransition(actionWith('supported'), 2, { status: 'supported', sunsetAt: NOW }, NOW)).toMatchObject({
      ok: false,
      error: { status: 422, code: 'sunset_in_past' },
    });
    expect(planTransition(actionWith('supported'), 2, { status: 'supported', sunsetAt: LATER }, NOW)).toMatchObject({
      ok: true,
      changes: [{ version: 2, status: 'supported', sunsetAt: LATER, statusChanged: false }],
    });
    expect(
      planTransition(actionWith('supported', LATER), 2, { status: 'supported', sunsetAt: LATER }, NOW),
    ).toMatchObject({ ok: true, changes: [] });
    // Without sunsetAt the sunset stays; null clears it; retiring drops it.
    expect(planTransition(actionWith('supported', LATER), 2, { status: 'supported' }, NOW)).toMatchObject({
      ok: true,
      changes: [],
    });
    expect(
      planTransition(actionWith('supported', LATER), 2, { status: 'supported', sunsetAt: null }, NOW),
    ).toMatchObject({ ok: true, changes: [{ sunsetAt: null }] });
    expect(planTransition(actionWith('supported', LATER), 2, { status: 'retired' }, NOW)).toMatchObject({
      ok: true,
      changes: [{ status: 'retired', sunsetAt: null }],
    });
  });

  it('answers 404 for a version the action does not declare, and ignores rows of other actions or unknown statuses', () => {
    expect(planTransition(actionWith('shadow'), 7, { status: 'current' }, NOW)).toMatchObject({
      ok: false,
      error: { status: 404, code: 'not_found' },
    });
    const action = withRollout(actionWith('shadow'), [
      { action: 'other', version: 2, status: 'current', sunsetAt: null, updatedAt: NOW },
      { action: 'probe', version: 2, status: 'bogus', sunsetAt: null, updatedAt: NOW },
    ]);
    expect(action.contracts.map((c) => c.status)).toEqual(['current', 'shadow']);
  });
});
