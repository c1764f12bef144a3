import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, type Proposal } from '@/db/schema';
import type { Resolution, RuleAgent } from '@/lib/actions/types';
import { authorityGate } from './authority';
import type { GateSubject } from './types';

/** Why the proposing key no longer covers a proposal (`agentName` as the key row has it now). */
export type KeyAuthorityLapse = { code: 'agent_key_revoked' } | { code: 'grants_changed'; agentName: string };

/**
 * Authority as it stands now for a proposal an agent key made: the key is not revoked, still
 * allows the action, and its grants still cover the resolved resource (the intake's own gate).
 * Rotation is not revocation: a rotated key's proposals keep their authority. When it still holds,
 * the key as the rules read it now (`agent`; none when no key proposed it).
 */
export async function keyAuthority(
  db: Database,
  proposal: Pick<Proposal, 'agentKeyId'>,
  subject: GateSubject,
  resolution: Resolution,
): Promise<{ lapse: KeyAuthorityLapse; agent?: undefined } | { lapse?: undefined; agent?: RuleAgent }> {
  if (!proposal.agentKeyId) return {};
  const [key] = await db
    .select({
      agentName: agentKeys.agentName,
      allowedActions: agentKeys.allowedActions,
      grants: agentKeys.grants,
      revokedAt: agentKeys.revokedAt,
    })
    .from(agentKeys)
    .where(eq(agentKeys.id, proposal.agentKeyId))
    .limit(1);
  if (!key || key.revokedAt) return { lapse: { code: 'agent_key_revoked' } };
  const allowed =
    key.allowedActions.includes(subject.action.name) &&
    (await authorityGate(subject, { grants: key.grants, resolution })).ok;
  return allowed
    ? { agent: { id: proposal.agentKeyId, grants: key.grants } }
    : { lapse: { code: 'grants_changed', agentName: key.agentName } };
}
