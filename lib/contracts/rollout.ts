import type { ActionModule, ContractStatus, ContractVersion } from '@/lib/actions/types';
import type { ErrorKey } from '@/lib/errors/codes';
import { notFound, Refusal } from '@/lib/errors/refusal';

/**
 * A tenant's rollout of contract versions (issue 12): its `contract_rollouts` rows override the
 * statuses an action module declares. Pure: the catalog (lib/contracts/catalog.ts) reads the rows,
 * `setContractStatus` (lib/definitions/set-status.ts) writes the plan made here.
 *
 * The state machine, per action, with exactly one `current` version at every moment:
 *
 *   shadow ──promote──▶ current ──(another version promoted)──▶ supported ──retire──▶ retired
 *
 * - shadow → current | supported | retired
 * - supported → current (the old current becomes supported) | retired | supported (a sunset change)
 * - retired → shadow | supported (reinstated; never straight to current)
 * - current → nothing: promote another version instead, which makes this one supported
 */

export const CONTRACT_STATUSES = [
  'current',
  'supported',
  'shadow',
  'retired',
] as const satisfies readonly ContractStatus[];

export type RolloutRow = { action: string; version: number; status: string; sunsetAt: Date | null; updatedAt: Date };

const isStatus = (value: string): value is ContractStatus => (CONTRACT_STATUSES as readonly string[]).includes(value);

/** The action with the tenant's statuses, sunsets and since-dates over its declared versions. */
export function withRollout(action: ActionModule, rows: readonly RolloutRow[]): ActionModule {
  const mine = rows.filter((row) => row.action === action.name);
  if (mine.length === 0) return action;
  const contracts = action.contracts.map((contract): ContractVersion => {
    const row = mine.find((r) => r.version === contract.version);
    if (!row || !isStatus(row.status)) return contract;
    return {
      ...contract,
      status: row.status,
      since: row.updatedAt,
      sunsetAt: row.status === 'supported' ? row.sunsetAt : null,
    };
  });
  return { ...action, contracts };
}

export type TransitionRequest = { status: ContractStatus; sunsetAt?: Date | null };

/** One version's new state, to be written as the tenant's row. */
export type RolloutChange = { version: number; status: ContractStatus; sunsetAt: Date | null; statusChanged: boolean };

export type TransitionPlan =
  | { ok: true; from: ContractStatus; changes: RolloutChange[]; demoted: number | null }
  | { ok: false; error: Refusal };

const refused = (key: ErrorKey, message: string): TransitionPlan => ({ ok: false, error: new Refusal(key, message) });

const ALLOWED: Record<ContractStatus, readonly ContractStatus[]> = {
  shadow: ['current', 'supported', 'retired', 'shadow'],
  supported: ['current', 'retired', 'supported'],
  retired: ['shadow', 'supported', 'retired'],
  current: ['current'],
};

/**
 * What moving `version` of `action` (as the tenant has it now) to `request` changes, or why it
 * may not. A request for the status the version already has is allowed and changes nothing unless
 * it moves a supported version's sunset.
 */
export function planTransition(
  action: ActionModule,
  version: number,
  request: TransitionRequest,
  now: Date,
): TransitionPlan {
  const target = action.contracts.find((contract) => contract.version === version);
  if (!target) return { ok: false, error: notFound('contract version') };
  const from = target.status;
  const to = request.status;
  if (request.sunsetAt && to !== 'supported') {
    return refused(
      'sunset_requires_supported',
      'Only a supported version can have a sunset; send "sunsetAt" with status "supported".',
    );
  }
  if (request.sunsetAt && request.sunsetAt.getTime() <= now.getTime()) {
    return refused('sunset_in_past', '"sunsetAt" must be in the future; retire the version to stop accepting it now.');
  }
  if (!ALLOWED[from].includes(to)) {
    if (from === 'current') {
      return refused(
        to === 'retired' ? 'cannot_retire_current' : 'cannot_demote_current',
        `v${version} is the current version of ${action.name}; promote another version to current first ` +
          `(this one then becomes supported).`,
      );
    }
    if (from === 'retired')
      return refused(
        'retired_needs_reinstatement',
        `v${version} is retired; put it in shadow or supported first, then promote it.`,
      );
    return refused(
      'invalid_transition',
      `v${version} is ${from}; it cannot become ${to}. Retire it to stop accepting it.`,
    );
  }
  const sunsetAt =
    to === 'supported'
      ? request.sunsetAt === undefined && from === 'supported'
        ? (target.sunsetAt ?? null)
        : (request.sunsetAt ?? null)
      : null;
  const changes: RolloutChange[] = [];
  let demoted: number | null = null;
  if (to === 'current' && from !== 'current') {
    const current = action.contracts.find((contract) => contract.status === 'current');
    if (current) {
      demoted = current.version;
      changes.push({ version: current.version, status: 'supported', sunsetAt: null, statusChanged: true });
    }
  }
  const sameSunset = (target.sunsetAt?.getTime() ?? null) === (sunsetAt?.getTime() ?? null);
  if (from !== to || !sameSunset) changes.push({ version, status: to, sunsetAt, statusChanged: from !== to });
  return { ok: true, from, changes, demoted };
}

/** The invariant every plan keeps: one current version per action. */
export function exactlyOneCurrent(action: ActionModule): boolean {
  return action.contracts.filter((contract) => contract.status === 'current').length === 1;
}
