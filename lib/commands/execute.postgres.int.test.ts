import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '@/db/client';
import { executions } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { openReplicaHandle } from '@/test/db';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { proposalRow } from '@/test/queries';
import { executeCommand } from './execute';

const w = setupCommandWorld();
let replica: DatabaseHandle;

beforeAll(async () => {
  replica = await openReplicaHandle(w.t.handle);
});
afterAll(async () => {
  await replica?.close();
});

describe('exactly once under concurrency (PostgreSQL)', () => {
  it('the same command posted 50 times at once, from two app replicas: one refund, every answer the recorded outcome', async () => {
    const { proposal, command } = await w.approvedRefund(300);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        executeCommand(i % 2 === 0 ? w.t.db : replica.db, {
          scope: 'payments',
          jws: command.jws,
          systems: w.systems.client,
          writeClient: w.writeClient('payments'),
          deadlineMs: 2_000,
        }),
      ),
    );
    const mine = (await w.orderRefunds()).filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`);
    expect(mine).toHaveLength(1);
    expect(await w.t.db.select().from(executions).where(eq(executions.commandId, command.id))).toHaveLength(1);

    const succeeded = answers.filter((answer) => answer.status === 'succeeded');
    expect(succeeded.length).toBeGreaterThanOrEqual(1);
    // Those that arrived while the first was still running saw it in progress (never a second effect).
    for (const answer of answers) {
      expect(['succeeded', 'outcome_unknown']).toContain(answer.status);
      if (answer.status === 'succeeded')
        expect(answer.receipt).toEqual({
          ...mine[0],
          currency: 'USD',
          orderId: 'ord_1842',
          createdAt: expect.any(String) as string,
        });
      else expect(answer.errorCode).toBe('in_progress');
    }
    expect((await proposalRow(w.t.db, proposal.id))?.status).toBe('succeeded');
    // Once recorded, every replay is the recorded outcome.
    const later = await Promise.all(Array.from({ length: 10 }, () => w.execute(command.jws)));
    for (const answer of later) expect(answer).toEqual(succeeded[0]);
  });

  it('a late reject and the executor start serialize on the proposal: exactly one of them wins', async () => {
    for (let round = 0; round < 5; round += 1) {
      const { proposal, command } = await w.approvedRefund(100);
      const [executed, rejected] = await Promise.allSettled([
        w.execute(command.jws),
        decide(replica.db, w.systems.client, {
          userId: w.world.userId('bob'),
          proposalId: proposal.id,
          request: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'Changed my mind' },
        }),
      ]);
      const row = await proposalRow(w.t.db, proposal.id);
      const mine = (await w.orderRefunds()).filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`);
      expect(executed.status).toBe('fulfilled');
      if (rejected.status === 'fulfilled') {
        expect(row?.status).toBe('rejected');
        expect(executed.status === 'fulfilled' && executed.value).toMatchObject({
          status: 'failed',
          errorCode: 'proposal_not_approved',
        });
        expect(mine).toHaveLength(0);
      } else {
        expect(row?.status).toBe('succeeded');
        expect(mine).toHaveLength(1);
      }
    }
  });
});
