import 'server-only';
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { agentKeys, type Proposal, proposals, users } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { type RevisionChange, revisionChanges } from '@/lib/decisions/revision-view';
import { tenantActions } from '@/lib/definitions/catalog';
import { notAuthorized, notFound, Refusal } from '@/lib/errors/refusal';
import { aboutProposal, recordStateChange } from '@/lib/events/record';
import { adjustClaims, besides } from '@/lib/gates/claims';
import { pass, type Verdict } from '@/lib/gates/types';
import { CHECKS, FINISH, hashed, JUDGED, LOCKED_READS, type ShapedProposal, WRITES } from '@/lib/intake/admit';
import { type Output, Pipeline, Stop } from '@/lib/intake/pipeline';
import { refused } from '@/lib/intake/refusal';
import { shapeGate } from '@/lib/intake/shape';
import { canonicalJson } from '@/lib/payload-hash';
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
  const ran = await REVISION.run({
    db,
    systems,
    now,
    agent,
    parent,
    envelope: {
      requestId: `revision.${parent.id}`,
      action: parent.action,
      contractVersion: parent.contractVersion,
      args: input.args,
      evidenceRefs: parent.payload.evidenceRefs,
    },
    evidenceRefs: parent.payload.evidenceRefs,
    requestId: null,
    repairOf: null,
    rawText: JSON.stringify(input.args),
    revision: { userId: input.userId, parentId: parent.id, reason: input.reason },
  });
  if (ran instanceof Stop) throw ran.result;
  return ran.proposal;
}

type RevisionInput = Omit<ShapedProposal, 'action' | 'contract' | 'args'> & {
  db: Database;
  systems: SystemsClient;
  now: Date;
  /** The proposal revised, as read before the transaction (locked and read again in it). */
  parent: Proposal;
  /** The edited arguments in the envelope the parent was proposed with. */
  envelope: Record<string, unknown> & { args: unknown };
  revision: NonNullable<ShapedProposal['revision']>;
};

/**
 * A revision is admitted as intake admits a proposal (lib/intake/admit.ts), with its own steps: Shape
 * under the versions the tenant accepts now (a retired one is refused), the locked fields, a change
 * at all; in the transaction, the parent locked first (it must still be open when the revision
 * lands; lock order: proposal rows, then the claims row) and its claim not counted; and the parent
 * cancelled with the revision's writes.
 */
const REVISION = Pipeline.start<RevisionInput>()
  .step('catalog', async ({ db, agent }) => ({ actions: await tenantActions(db, agent.tenantId) }))
  .gate(
    'shape',
    ({ envelope, agent, actions }) => shapeGate(envelope, agent, actions),
    ({ action, contract, args }) => ({ action, contract, args }),
  )
  .gate(
    'locked fields',
    ({ action, parent, args }) => unlocked(action, parent.payload.args, args),
    () => ({}),
  )
  .step('payload', hashed)
  .gate(
    'change',
    ({ hash, parent }) =>
      hash === parent.payloadHash
        ? refused('no_change', 'The edited arguments are the same as the current ones; nothing to revise.')
        : pass(undefined),
    () => ({}),
  )
  .then(CHECKS)
  .inTransaction(
    'transaction',
    Pipeline.start<Output<typeof CHECKS> & RevisionInput>()
      .step('parent', async ({ db, parent, now }) => {
        const [locked] = await db.select().from(proposals).where(eq(proposals.id, parent.id)).for('update').limit(1);
        if (!locked) throw notFound();
        assertRevisable(locked, now);
        return { locked };
      })
      .together('locked reads', LOCKED_READS)
      .step('besides parent', ({ open, locked }) => ({ open: besides(open, locked) }))
      .then(JUDGED)
      .together('writes', {
        ...WRITES,
        replaced: async ({ db, parent, id, hash, now, revision }) => {
          await db
            .update(proposals)
            .set({ status: 'cancelled', statusReason: `Replaced by revision ${id}`, decidedAt: now, updatedAt: now })
            .where(eq(proposals.id, parent.id));
          await adjustClaims(db, parent, parent.status, 'cancelled');
          await recordStateChange(db, {
            ...aboutProposal(parent),
            type: 'proposal.revised',
            actor: { type: 'user', id: revision.userId },
            reasonCode: 'revised',
            data: { revision: id, revisionHash: hash, reason: revision.reason },
            occurredAt: now,
            outbox: { topic: 'proposal.revised', body: { proposalId: parent.id, status: 'cancelled', revisionId: id } },
          });
          return {};
        },
      })
      .then(FINISH),
  );

/**
 * The form shows locked arguments read-only, but the server never trusts the form: a revision
 * that changes one is refused with the field named, before any gate runs.
 */
function unlocked(
  action: ActionModule,
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Verdict<undefined, Refusal> {
  const changed = (action.editing?.locked ?? []).filter(
    (field) => canonicalJson(before[field] ?? null) !== canonicalJson(after[field] ?? null),
  );
  if (changed.length === 0) return pass(undefined);
  const message = (field: string) =>
    `${field} cannot be changed by an edit: it names what this proposal acts on. Reject the proposal and ask ` +
    `for a new one instead.`;
  return refused('locked_field', message(changed.join(' and ')), {
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
