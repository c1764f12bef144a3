/**
 * Idempotency comes before the version gate: once a contract version is retired, an agent's retry
 * of a request accepted under it answers the same proposal (200), not 422
 * unsupported_contract_version — which would invite the agent to propose it again. Through the
 * real POST /api/v1/proposals route.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as proposalsRoute } from '@/app/api/v1/proposals/route';
import { intakeAttempts, proposals } from '@/db/schema';
import type { TransitionRequest } from '@/lib/contracts/rollout';
import { setContractStatus } from '@/lib/definitions/set-status';
import { setupTestDatabase } from '@/test/db';
import { setupRouteSystems } from '@/test/systems';
import { agentRequest, type SeededWorld, seedWorld } from '@/test/world';

// The agent routes need no session; next-auth itself does not load outside Next.
vi.mock('@/lib/auth', () => ({ auth: async () => null }));

const t = setupTestDatabase();
await setupRouteSystems(t);
let world: SeededWorld;

beforeAll(async () => {
  world = await seedWorld(t.db);
});

const hold = (requestId: string, quantity = 1, extra: Record<string, unknown> = {}) => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku: 'filter-blue', quantity },
  evidenceRefs: [],
  ...extra,
});
const post = (body: unknown) =>
  proposalsRoute(
    agentRequest(world.agentKey('acme'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
const move = async (version: number, request: TransitionRequest) =>
  setContractStatus(t.db, {
    tenantId: (await world.agent('acme')).tenantId,
    userId: world.userId('carol'),
    action: 'hold_stock',
    version,
    request,
  });
type Answer = { proposal?: { id: string; payloadHash: string }; error?: { code: string } };

describe('a retry after its contract version was retired', () => {
  it('answers the accepted proposal (200, recorded as replayed); a new request or another payload under the retired version is refused', async () => {
    const accepted = await post(hold('retired_retry'));
    expect(accepted.status).toBe(201);
    const { proposal } = (await accepted.json()) as Answer;

    // v2 becomes current (v1 supported), then v1 is retired.
    await move(2, { status: 'current' });
    await move(1, { status: 'retired' });

    const retry = await post(hold('retired_retry'));
    expect(retry.status).toBe(200);
    expect(((await retry.json()) as Answer).proposal).toMatchObject({
      id: proposal!.id,
      payloadHash: proposal!.payloadHash,
    });
    expect(await t.db.select().from(proposals).where(eq(proposals.requestId, 'retired_retry'))).toHaveLength(1);
    const attempts = await t.db.select().from(intakeAttempts).where(eq(intakeAttempts.requestId, 'retired_retry'));
    expect(attempts.map((a) => [a.outcome, a.httpStatus]).sort()).toEqual([
      ['accepted', 201],
      ['replayed', 200],
    ]);

    const conflicts = await Promise.all([
      post(hold('retired_retry', 2)),
      post(hold('retired_retry', 1, { contractVersion: 2 })),
      post(hold('retired_retry', 1, { evidenceRefs: ['ticket_message_1'] })),
    ]);
    for (const conflict of conflicts) {
      expect(conflict.status).toBe(409);
      expect(((await conflict.json()) as Answer).error?.code).toBe('idempotency_conflict');
    }

    const fresh = await post(hold('retired_fresh'));
    expect(fresh.status).toBe(422);
    expect(((await fresh.json()) as Answer).error?.code).toBe('unsupported_contract_version');
  });
});
