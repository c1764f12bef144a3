import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, type Proposal, proposals, users } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { tenantActions } from '@/lib/contracts/catalog';
import { type RevisionChange, revisionChanges } from '@/lib/decisions/revision-view';
import { notAuthorized, notFound, Refusal } from '@/lib/errors/refusal';
import { aboutProposal, recordStateChange } from '@/lib/events/record';
import { adjustClaims } from '@/lib/gates/claims';
import { admitShaped, normalizedPayload } from '@/lib/intake/admit';
import { checkShape } from '@/lib/intake/shape';
import { canonicalJson, payloadHash } from '@/lib/payload-hash';
import { alreadyWords } from '@/lib/proposals/words';
import type { SystemsClient } from '@/lib/systems/client';
import { requireDecider } from './deciders';

/**
 * An approver's edit: never a change in place, but a new revision of the proposal that goes
 * through every gate again under the same agent key, with its own hash, linked to its parent.
 * The parent is cancelled in the same transaction; the editor counts as an initiator of this
 * revision and of every later one in the chain (lib/decisions/initiators.ts), so someone else must approve it.
 */
export async function reviseProposal(
  db: Database,
  systems: SystemsClient,
  input: { userId: string; proposalId: string; args: unknown; reason: string },
  now = new Date(),
): Promise<Proposal> {
  const [parent] = await db.select().from(proposals).where(eq(proposals.id, input.proposalId)).limit(1);
  if (!parent) throw notFound();
  await requireDecider(db, parent, input.userId, 'Editing');
  assertRevisable(parent, now);
  const [key] = parent.agentKeyId
    ? await db.select().from(agentKeys).where(eq(agentKeys.id, parent.agentKeyId)).limit(1)
    : [];
  // A revision acts with the original agent's authority: a revoked key has none left.
  if (!key || key.revokedAt) throw notAuthorized();
  const agent = {
    keyId: key.id,
    tenantId: key.tenantId,
    agentName: key.agentName,
    allowedActions: key.allowedActions,
    grants: key.grants,
    onBehalfOfUserId: key.onBehalfOfUserId,
  };
  const previous = parent.payload;
  const envelope = {
    requestId: `revision.${parent.id}`,
    action: parent.action,
    contractVersion: parent.contractVersion,
    args: input.args,
    evidenceRefs: previous.evidenceRefs,
  };
  // The revision is held to the versions the tenant accepts now (a retired one is refused).
  const shaped = checkShape(envelope, agent, await tenantActions(db, key.tenantId));
  assertUnlocked(shaped.action, previous.args, shaped.args);
  const candidate = {
    agent,
    action: shaped.action,
    contract: shaped.contract,
    args: shaped.args,
    evidenceRefs: previous.evidenceRefs,
    requestId: null,
    repairOf: null,
  };
  if (payloadHash(normalizedPayload(candidate)) === parent.payloadHash) {
    throw new Refusal('no_change', 'The edited arguments are the same as the current ones; nothing to revise.');
  }
  const { proposal } = await admitShaped(
    db,
    systems,
    {
      ...candidate,
      rawText: JSON.stringify(input.args),
      revision: { userId: input.userId, parentId: parent.id, reason: input.reason },
    },
    now,
    {
      // The parent must still be open when the revision lands: locked before the resource's claims row, and checked
      // again.
      replaces: async (tx) => {
        const [locked] = await tx.select().from(proposals).where(eq(proposals.id, parent.id)).for('update').limit(1);
        if (!locked) throw notFound();
        assertRevisable(locked, now);
        return locked;
      },
      afterInsert: async (tx, revision) => {
        await tx
          .update(proposals)
          .set({
            status: 'cancelled',
            statusReason: `Replaced by revision ${revision.id}`,
            decidedAt: now,
            updatedAt: now,
          })
          .where(eq(proposals.id, parent.id));
        await adjustClaims(tx, parent, parent.status, 'cancelled');
        await recordStateChange(tx, {
          ...aboutProposal(parent),
          type: 'proposal.revised',
          actor: { type: 'user', id: input.userId },
          reasonCode: 'revised',
          data: { revision: revision.id, revisionHash: revision.payloadHash, reason: input.reason },
          occurredAt: now,
          outbox: {
            topic: 'proposal.revised',
            body: { proposalId: parent.id, status: 'cancelled', revisionId: revision.id },
          },
        });
      },
    },
  );
  return proposal;
}

/**
 * The form shows locked arguments read-only, but the server never trusts the form: a revision
 * that changes one is refused with the field named, before any gate runs.
 */
function assertUnlocked(action: ActionModule, before: Record<string, unknown>, after: Record<string, unknown>): void {
  const changed = (action.editing?.locked ?? []).filter(
    (field) => canonicalJson(before[field] ?? null) !== canonicalJson(after[field] ?? null),
  );
  if (changed.length === 0) return;
  const message = (field: string) =>
    `${field} cannot be changed by an edit: it names what this proposal acts on. Reject the proposal and ask ` +
    `for a new one instead.`;
  throw new Refusal('locked_field', message(changed.join(' and ')), {
    issues: changed.map((field) => ({
      field,
      code: 'locked',
      expected: 'the current value',
      received: 'a different value',
      message: message(field),
    })),
  });
}

function assertRevisable(proposal: Proposal, now: Date): void {
  if (proposal.status !== 'pending_approval') {
    throw new Refusal('already_decided', `${alreadyWords(proposal.status)}; it can no longer be edited.`);
  }
  if (proposal.expiresAt.getTime() <= now.getTime())
    throw new Refusal('expired', 'This proposal has expired; it can no longer be edited.');
}

/**
 * What a revision page shows beside the payload: the parent's arguments, what changed in words, and who edited them.
 */
export async function revisionOrigin(
  db: Database,
  proposal: Proposal,
): Promise<
  | {
      parentId: string;
      parentArgs: Record<string, unknown>;
      changes: RevisionChange[];
      editor: string;
      reason: string | null;
    }
  | undefined
> {
  if (!proposal.parentId) return undefined;
  const [parent] = await db
    .select({ payload: proposals.payload })
    .from(proposals)
    .where(and(eq(proposals.tenantId, proposal.tenantId), eq(proposals.id, proposal.parentId)))
    .limit(1);
  const [editor] = proposal.initiatedByUserId
    ? await db.select({ name: users.name }).from(users).where(eq(users.id, proposal.initiatedByUserId)).limit(1)
    : [];
  const parentArgs = parent?.payload.args ?? {};
  return {
    parentId: proposal.parentId,
    parentArgs,
    changes: revisionChanges(proposal.action, parentArgs, proposal.payload.args),
    editor: editor?.name ?? 'an operator',
    reason: proposal.revisionReason,
  };
}
