import { formatMoney } from '@/lib/money';
import type { GrantView } from './list';
import type { GrantState } from './terms';

/** A grant's state in words, as the list and the CLI say it. */
export const GRANT_STATE_WORDS: Record<GrantState, string> = {
  active: 'active',
  expired: 'expired',
  used_up: 'used up',
  revoked: 'revoked',
  role_changed: "ended: the granter's role changed",
  granter_removed: 'ended: the granter left the tenant',
  policy_changed: "ended: the action's policy changed",
};

/** "2 of 5 used", with the money total beside it when the grant has one ("12.00 of 25.00 EUR"). */
export function grantUseWords(
  grant: Pick<GrantView, 'usedCount' | 'maxCount' | 'usedTotalMinor' | 'maxTotalMinor' | 'currency'>,
): string {
  const count = `${grant.usedCount} of ${grant.maxCount} used`;
  if (grant.maxTotalMinor === null || !grant.currency) return count;
  return (
    `${count}, ${formatMoney(grant.usedTotalMinor, grant.currency)} ` +
    `of ${formatMoney(grant.maxTotalMinor, grant.currency)}`
  );
}

/** One grant as a terminal line or two: id, state, what it covers, its use, who and why. */
export function grantLines(grant: GrantView): string[] {
  const by = grant.grantedBy.name ?? grant.grantedBy.id;
  return [
    `${grant.id}  ${GRANT_STATE_WORDS[grant.state]}  ${grant.action} by ` +
      `agent ${grant.agentName} (${grant.agentKeyId}), ${grant.resourceKey ?? 'any resource'}, ` +
      `rule ${grant.rule} v${grant.policyVersion}`,
    `  ${grantUseWords(grant)}; granted by ${by} from ${grant.proposalId} at ${grant.createdAt}, ` +
      `until ${grant.expiresAt}: ${JSON.stringify(grant.reason)}` +
      (grant.endedAt
        ? `; ended ${grant.endedAt}${grant.endedBy ? ` by ${grant.endedBy}` : ''}` +
          `${grant.endNote ? ` (${JSON.stringify(grant.endNote)})` : ''}`
        : ''),
  ];
}
