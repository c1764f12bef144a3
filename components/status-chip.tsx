import type { ContractStatus } from '@/lib/actions/types';
import type { GrantState } from '@/lib/grants/terms';
import type { DeliveryStatus, ProposalStatus } from '@/lib/records';

/** One palette everywhere (UI.md "States and their look"). */
const TONE = {
  amber: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800',
  blue: 'bg-blue-100 text-blue-900 ring-blue-300 dark:bg-blue-950 dark:text-blue-200 dark:ring-blue-800',
  green: 'bg-green-100 text-green-900 ring-green-300 dark:bg-green-950 dark:text-green-200 dark:ring-green-800',
  red: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  violet: 'bg-violet-100 text-violet-900 ring-violet-300 dark:bg-violet-950 dark:text-violet-200 dark:ring-violet-800',
  redGrey: 'bg-stone-200 text-red-900 ring-stone-300 dark:bg-stone-800 dark:text-red-200 dark:ring-stone-700',
  grey: 'bg-zinc-200 text-zinc-700 ring-zinc-300 dark:bg-zinc-800 dark:text-zinc-300 dark:ring-zinc-700',
} as const;

type Look = { label: string; tone: keyof typeof TONE };

const LOOK: Record<ProposalStatus, Look> = {
  pending_approval: { label: 'pending approval', tone: 'amber' },
  approved: { label: 'approved', tone: 'blue' },
  executing: { label: 'executing', tone: 'blue' },
  succeeded: { label: 'succeeded', tone: 'green' },
  failed: { label: 'failed', tone: 'red' },
  outcome_unknown: { label: 'outcome unknown · checking', tone: 'violet' },
  rejected: { label: 'rejected', tone: 'redGrey' },
  expired: { label: 'expired', tone: 'grey' },
  stale: { label: 'stale', tone: 'grey' },
  cancelled: { label: 'cancelled', tone: 'grey' },
};

const DELIVERY_LOOK: Record<DeliveryStatus, Look> = {
  pending: { label: 'pending', tone: 'amber' },
  delivered: { label: 'delivered', tone: 'green' },
  dead: { label: 'dead', tone: 'red' },
};

/** Colour is never the only signal: every chip carries the word. */
function Chip({ look, status, testId }: { look: Look; status: string; testId: string }) {
  return (
    <span
      data-testid={testId}
      data-status={status}
      className={
        `inline-flex items-center whitespace-nowrap rounded-full px-2.5 py-0.5 text-xs font-medium ` +
        `ring-1 ${TONE[look.tone]}`
      }
    >
      {look.label}
    </span>
  );
}

export function StatusChip({ status, testId = 'status-chip' }: { status: ProposalStatus; testId?: string }) {
  return <Chip look={LOOK[status]} status={status} testId={testId} />;
}

/** A notification delivery: pending (amber), delivered (green), dead (red). */
export function DeliveryChip({ status }: { status: DeliveryStatus }) {
  return <Chip look={DELIVERY_LOOK[status]} status={status} testId="delivery-status" />;
}

const CONTRACT_LOOK: Record<ContractStatus, Look> = {
  current: { label: 'current', tone: 'green' },
  supported: { label: 'supported', tone: 'blue' },
  shadow: { label: 'shadow', tone: 'violet' },
  retired: { label: 'retired', tone: 'grey' },
};

/** A contract version in a tenant: current (green), supported (blue), shadow (violet), retired (grey). */
export function ContractStatusChip({ status }: { status: ContractStatus }) {
  return <Chip look={CONTRACT_LOOK[status]} status={status} testId="contract-status" />;
}

const GRANT_LOOK: Record<GrantState, Look> = {
  active: { label: 'active', tone: 'green' },
  expired: { label: 'expired', tone: 'grey' },
  used_up: { label: 'used up', tone: 'grey' },
  revoked: { label: 'revoked', tone: 'redGrey' },
  role_changed: { label: 'role changed', tone: 'grey' },
  granter_removed: { label: 'granter removed', tone: 'grey' },
  policy_changed: { label: 'policy changed', tone: 'grey' },
};

/** A standing grant: active (green) covers proposals; every way it ended is worded, revoked in red-grey. */
export function GrantStateChip({ state }: { state: GrantState }) {
  return <Chip look={GRANT_LOOK[state]} status={state} testId="grant-state" />;
}
