import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { decisions, executions, type Proposal, proposals } from '@/db/schema';
import { mintCommand } from '@/lib/commands/mint';
import { requireDecider } from '@/lib/decisions/deciders';
import {
  type PasskeyEvidence,
  passkeyRequired,
  passkeyRequiredError,
  verifySignedDecision,
} from '@/lib/decisions/passkey-signature';
import type { DecisionRequest } from '@/lib/decisions/requests';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { adjustClaims } from '@/lib/gates/claims';
import { isProposalId, newId } from '@/lib/ids';
import type { RelyingParty } from '@/lib/passkeys/relying-party';
import { payloadHash } from '@/lib/payload-hash';
import { alreadyWords } from '@/lib/proposals/words';
import { lockRoles, standingApprovers } from '@/lib/quorum/quorum';
import type { SystemsClient } from '@/lib/systems/client';
import { SPAN } from '@/lib/telemetry/attributes';
import { recordTimeToDecision } from '@/lib/telemetry/metrics';
import { withSpan } from '@/lib/telemetry/trace';
import { initiatorsOf } from './initiators';
import { describeDrift, type LiveRead, readLive, staleReason } from './live';
import { EXPIRY_ACTOR, endProposal, endStale, expiryReason } from './transitions';

/** `relyingParty`: where a signed decision's passkey assertion must come from (lib/passkeys/relying-party.ts). */
export type DecisionInput = {
  userId: string;
  proposalId: string;
  request: DecisionRequest;
  relyingParty?: RelyingParty;
};

/** A decision that ended the proposal without deciding it: committed, then answered as a refusal. */
type Ended = { ended: Refusal };

/**
 * One person's approve or reject of one proposal (docs/design.md §6).
 *
 * An approval re-runs Meaning and Authority against live state: the system of record is read first,
 * with no database lock held, then everything is verified inside the transaction with the proposal
 * row locked, so concurrent deciders serialize and only one can finish it. If the world moved, the
 * proposal becomes `stale` (committed) and the approval is refused. A reject ends a pending proposal
 * at once, and also an approved one whose command has not started executing: deny wins.
 */
export async function decide(
  db: Database,
  systems: SystemsClient,
  input: DecisionInput,
  now = new Date(),
): Promise<Proposal> {
  // The id comes from a URL: named only when it is one.
  return withSpan(
    SPAN.decision,
    isProposalId(input.proposalId) ? { proposalId: input.proposalId } : {},
    async (span) => {
      try {
        const decided = await decideOnce(db, systems, input, now);
        // outcome: the status the decision led to (approved, rejected, or still pending_approval).
        span.note({ tenantId: decided.tenantId, action: decided.action, outcome: decided.status });
        if (decided.status === 'approved' || decided.status === 'rejected') {
          recordTimeToDecision((now.getTime() - decided.createdAt.getTime()) / 1000, decided.action, decided.status);
        }
        return decided;
      } catch (error) {
        // A refusal's code (stale, expired, already_decided, hash_mismatch, …), never its message.
        span.note({ outcome: error instanceof Refusal ? error.code : 'error' });
        throw error;
      }
    },
  );
}

async function decideOnce(db: Database, systems: SystemsClient, input: DecisionInput, now: Date): Promise<Proposal> {
  const { userId, proposalId, request } = input;

  let live: LiveRead | undefined;
  if (request.decision === 'approve') {
    // The same checks as below, unlocked, so nobody who may not decide can make us read the system of record.
    const [peek] = await db.select().from(proposals).where(eq(proposals.id, proposalId)).limit(1);
    if (!peek) throw notFound();
    await checkDecider(db, peek, userId, request, now);
    if (peek.status === 'pending_approval' && peek.expiresAt.getTime() > now.getTime())
      live = await readLive(db, systems, peek);
  }

  const result = await db.transaction(async (tx): Promise<Proposal | Ended> => {
    const [proposal] = await tx.select().from(proposals).where(eq(proposals.id, proposalId)).for('update').limit(1);
    if (!proposal) throw notFound();
    // The decider's role holds until this commits: a concurrent role change waits, or lands first and is read.
    await lockRoles(tx, proposal.tenantId, [userId]);
    const ended = await checkDecider(tx, proposal, userId, request, now);
    if (ended === 'expired') {
      await endProposal(
        tx,
        proposal,
        { status: 'expired', reason: expiryReason(proposal), actor: EXPIRY_ACTOR, reasonCode: 'expired' },
        now,
      );
      return {
        ended: new Refusal(
          'expired',
          'This proposal expired before the decision; a timeout never approves. Nothing was approved.',
        ),
      };
    }

    // A signed decision's statement and assertion are checked (and its challenge used up) with the row locked.
    const signed = request.passkey
      ? await verifySignedDecision(
          tx,
          { userId, proposal, decision: request.decision, signed: request.passkey, rp: input.relyingParty },
          now,
        )
      : undefined;

    if (request.decision === 'approve') {
      // Only a pending proposal reaches here; it was pending before too, so the system of record was read.
      if (!live) throw new Error('approval without a live read');
      const stale = await staleReason(tx, proposal, live);
      if (stale) {
        await endStale(tx, proposal, stale, { type: 'user', id: userId }, now);
        return {
          ended: new Refusal(
            'stale',
            `The world moved since this was proposed: ${stale.reason}. It is now stale; nothing was approved.`,
          ),
        };
      }
      // Moved but still valid (a sibling refund the balance still covers): shown, not fatal (docs/design.md §6).
      if (describeDrift(proposal, live))
        return record(tx, proposal, userId, request, now, { factsChanged: true, ...signed });
    }
    return record(tx, proposal, userId, request, now, { ...signed });
  });
  if ('ended' in result) throw result.ended;
  return result;
}

/**
 * Who may decide, what state allows it, and whether the bytes are the reviewed ones. Throws the
 * refusal; answers 'expired' when the proposal is pending but overdue (the caller ends it).
 */
async function checkDecider(
  tx: Database,
  proposal: Proposal,
  userId: string,
  request: DecisionRequest,
  now: Date,
): Promise<'expired' | undefined> {
  await requireDecider(tx, proposal, userId, 'Deciding');
  const overrulable =
    request.decision === 'reject' && proposal.status === 'approved' && !(await executionStarted(tx, proposal.id));
  if (proposal.status !== 'pending_approval' && !overrulable) {
    throw new Refusal('already_decided', `${alreadyWords(proposal.status)}; nothing was changed.`);
  }
  if (proposal.status === 'pending_approval' && proposal.expiresAt.getTime() <= now.getTime()) return 'expired';
  if (request.payloadHash !== proposal.payloadHash || payloadHash(proposal.payload) !== proposal.payloadHash) {
    throw new Refusal(
      'hash_mismatch',
      'The payload hash you approved is not the one stored; reload the proposal and review it again.',
    );
  }
  if (request.decision === 'approve' && (await initiatorsOf(tx, proposal)).has(userId)) {
    throw new Refusal(
      'self_approval',
      'You initiated this proposal or edited it (or a revision before it), so someone else must approve it.',
    );
  }
  if (request.decision === 'approve' && !request.passkey && (await passkeyRequired(tx, proposal)))
    throw passkeyRequiredError();
  const [previous] = await tx
    .select({ id: decisions.id, withdrawnAt: decisions.withdrawnAt })
    .from(decisions)
    .where(and(eq(decisions.proposalId, proposal.id), eq(decisions.userId, userId)))
    .limit(1);
  if (previous?.withdrawnAt)
    throw new Refusal(
      'already_decided',
      'Your approval of this proposal was withdrawn when your role changed; it does not count again, and another ' +
        'approver must add theirs.',
    );
  if (previous)
    throw new Refusal('already_decided', 'You already decided this proposal; another approver must add theirs.');
  return undefined;
}

async function executionStarted(tx: Database, proposalId: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: executions.id })
    .from(executions)
    .where(eq(executions.proposalId, proposalId))
    .limit(1);
  return row !== undefined;
}

/** The decision row, the status it leads to, outbox and audit. */
async function record(
  tx: Database,
  proposal: Proposal,
  userId: string,
  request: DecisionRequest,
  now: Date,
  noted: { factsChanged?: true } & Partial<PasskeyEvidence> = {},
): Promise<Proposal> {
  const overruled = proposal.status === 'approved';
  await tx.insert(decisions).values({
    id: newId('dec'),
    tenantId: proposal.tenantId,
    proposalId: proposal.id,
    userId,
    decision: request.decision,
    payloadHash: proposal.payloadHash,
    reason: request.reason ?? null,
    createdAt: now,
  });
  // Only approvers who hold the rule's role now count; an approval holds their roles until commit.
  const approvals = await standingApprovers(tx, proposal, { lock: request.decision === 'approve' });
  const nextStatus =
    request.decision === 'reject'
      ? 'rejected'
      : approvals.length >= proposal.routing.approvals
        ? 'approved'
        : 'pending_approval';
  const [updated] = await tx
    .update(proposals)
    .set({
      status: nextStatus,
      decidedAt: nextStatus === 'pending_approval' ? null : now,
      statusReason: request.decision === 'reject' ? (request.reason ?? null) : null,
      updatedAt: now,
    })
    .where(eq(proposals.id, proposal.id))
    .returning();
  if (!updated) throw new Error('locked proposal vanished');
  await adjustClaims(tx, proposal, proposal.status, nextStatus);

  const type =
    request.decision === 'reject'
      ? 'proposal.rejected'
      : nextStatus === 'approved'
        ? 'proposal.approved'
        : 'proposal.approval_added';
  await recordStateChange(tx, {
    tenantId: proposal.tenantId,
    type,
    actor: { type: 'user', id: userId },
    proposalId: proposal.id,
    payloadHash: proposal.payloadHash,
    reasonCode: request.decision,
    contractVersion: proposal.contractVersion,
    data: {
      approvals: approvals.length,
      required: proposal.routing.approvals,
      ...(overruled ? { overruledApproval: true } : {}),
      ...noted,
    },
    occurredAt: now,
    outbox: {
      topic: 'proposal.decided',
      body: {
        proposalId: proposal.id,
        status: nextStatus,
        decision: request.decision,
        payloadHash: proposal.payloadHash,
      },
    },
  });
  // The quorum was reached: the signed command is minted in this same transaction (docs/design.md §7).
  if (nextStatus === 'approved') await mintCommand(tx, updated, now);
  return updated;
}
