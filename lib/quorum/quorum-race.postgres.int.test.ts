/**
 * A role change racing the approval that would complete a quorum (docs/design.md §6). Real row locks
 * need a real server: this file runs only in the integration-postgres project. Whichever commits
 * first, the finished state is one of two stories, never a command minted on an approval withdrawn
 * (or one whose approver had already lost the role), and nobody deadlocks.
 */
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { commands, decisions, type Proposal, type Role } from '@/db/schema';
import { QUEUE_FIFTY_ORDERS } from '@/demo/systems/world';
import { changeRole, grantMembership, removeMembership } from '@/lib/admin/members';
import { decide } from '@/lib/decisions/decide';
import { Refusal } from '@/lib/errors/refusal';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { auditRowsFor, proposalRow } from '@/test/queries';
import type { PersonName } from '@/test/world';

const w = setupCommandWorld();
const { t } = w;
if (t.driver !== 'postgres')
  throw new Error('quorum-race.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');

const approve = (person: PersonName, proposal: Proposal) =>
  decide(t.db, w.systems.client, {
    userId: w.world.userId(person),
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
const ADMIN = { type: 'system' as const, id: 'test' };
const setRole = (person: PersonName, role: Role) =>
  changeRole(t.db, { tenantId: 'acme', userId: w.world.userId(person), role, actor: ADMIN });
/** Back to approver, joining again if they were removed. */
const restore = (person: PersonName) =>
  t.db.transaction((tx) =>
    grantMembership(tx, { tenantId: 'acme', userId: w.world.userId(person), role: 'approver', actor: ADMIN }),
  );
const refund = (round: number) =>
  w.propose('issue_refund', {
    orderId: QUEUE_FIFTY_ORDERS[round % QUEUE_FIFTY_ORDERS.length]!,
    amountMinor: 10_100,
    currency: 'EUR',
    reason: 'Damaged',
  });
const commandsOf = (proposalId: string) => t.db.select().from(commands).where(eq(commands.proposalId, proposalId));
const decisionOf = async (person: PersonName, proposalId: string) =>
  (
    await t.db
      .select()
      .from(decisions)
      .where(and(eq(decisions.proposalId, proposalId), eq(decisions.userId, w.world.userId(person))))
  )[0];

function codeOf(result: PromiseSettledResult<unknown>): string {
  if (result.status === 'fulfilled') return 'ok';
  return result.reason instanceof Refusal ? result.reason.code : `unexpected: ${String(result.reason)}`;
}

describe('a role change racing the completing approval (PostgreSQL)', () => {
  const rounds = [1, 2, 3, 4, 5, 6, 7, 8].map(
    (round) => [round % 2 === 0 ? 'removed' : 'demoted to viewer', round] as const,
  );
  it.each(rounds)(
    'Bob approved; Bob is %s while Alice approves: approved with Bob counted, or waiting with Bob withdrawn (round %i)',
    async (change, round) => {
      await restore('bob');
      const proposal = await refund(round);
      await approve('bob', proposal);
      const bobsChange = () =>
        change === 'removed'
          ? removeMembership(t.db, { tenantId: 'acme', userId: w.world.userId('bob'), actor: ADMIN })
          : setRole('bob', 'viewer');
      // Started in either order, so each side sometimes takes the locks first.
      const approvingFirst = round % 4 < 2 ? undefined : approve('alice', proposal);
      const changing = bobsChange();
      const results = await Promise.allSettled([changing, approvingFirst ?? approve('alice', proposal)]);
      expect(results.map(codeOf)).toEqual(['ok', 'ok']);

      const status = (await proposalRow(t.db, proposal.id)).status;
      const bob = await decisionOf('bob', proposal.id);
      const minted = await commandsOf(proposal.id);
      const types = (await auditRowsFor(t.db, proposal.id)).map((row) => row.type);
      if (status === 'approved') {
        // Alice's decision committed first: Bob was an approver when the command was minted.
        expect(bob?.withdrawnAt).toBeNull();
        expect(minted).toHaveLength(1);
        expect(types).not.toContain('proposal.approval_withdrawn');
        // Bob is no approver now: the executor counts again and writes nothing.
        expect(await w.execute(minted[0]!.jws)).toMatchObject({ status: 'failed', errorCode: 'quorum_lapsed' });
      } else {
        expect(status).toBe('pending_approval');
        expect(bob?.withdrawnAt).toBeInstanceOf(Date);
        expect(minted).toEqual([]);
        expect(types.filter((type) => type === 'proposal.approval_withdrawn')).toHaveLength(1);
      }
      await restore('bob');
    },
  );

  it.each([1, 2, 3, 4, 5, 6])(
    'Bob approved; Alice is demoted while she approves: she is refused, or her approval completes it and stands ' +
      '(round %i)',
    async (round) => {
      await setRole('alice', 'approver');
      const proposal = await refund(round + 8);
      await approve('bob', proposal);
      const [demoted, decided] = (
        await Promise.allSettled([setRole('alice', 'viewer'), approve('alice', proposal)])
      ).map(codeOf);
      expect(demoted).toBe('ok');
      const status = (await proposalRow(t.db, proposal.id)).status;
      const alice = await decisionOf('alice', proposal.id);
      if (decided === 'ok') {
        expect(status).toBe('approved');
        expect(alice?.withdrawnAt).toBeNull();
        expect(await commandsOf(proposal.id)).toHaveLength(1);
      } else {
        expect(decided).toBe('forbidden_role');
        expect(status).toBe('pending_approval');
        expect(alice).toBeUndefined();
        expect(await commandsOf(proposal.id)).toEqual([]);
      }
      await setRole('alice', 'approver');
    },
  );

  it('many role changes and approvals at once on several proposals: no deadlock, and every command stands on two unwithdrawn approvals', async () => {
    await setRole('alice', 'approver');
    await setRole('bob', 'approver');
    await setRole('dave', 'approver');
    const proposals = await Promise.all([1, 2, 3, 4].map((i) => refund(i + 3)));
    for (const proposal of proposals) await approve('dave', proposal);
    const work = [
      setRole('dave', 'viewer'),
      setRole('bob', 'admin'),
      ...proposals.flatMap((proposal) => [approve('alice', proposal), approve('bob', proposal)]),
      setRole('alice', 'viewer'),
    ];
    const codes = (await Promise.allSettled(work)).map(codeOf);
    expect(codes.filter((code) => code.startsWith('unexpected'))).toEqual([]);
    for (const proposal of proposals) {
      const row = await proposalRow(t.db, proposal.id);
      const standing = (
        await t.db
          .select()
          .from(decisions)
          .where(and(eq(decisions.proposalId, proposal.id), eq(decisions.decision, 'approve')))
      ).filter((d) => !d.withdrawnAt);
      const minted = await commandsOf(proposal.id);
      expect(minted.length > 0).toBe(row.status === 'approved');
      if (row.status === 'approved') expect(standing.length).toBeGreaterThanOrEqual(2);
    }
    await setRole('alice', 'approver');
    await setRole('bob', 'approver');
    await setRole('dave', 'viewer');
  });
});
