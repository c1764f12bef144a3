import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { proposals } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { errorBody } from '@/lib/http/errors';
import { setupTestDatabase } from '@/test/db';
import { attemptsOf, expectRejection, submitAs } from '@/test/intake';
import { rowCounts } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededAgents } from '@/test/world';
import { MAX_REPAIRS } from './repair';

/**
 * Repair chains (docs/design.md §4): a request may name, in `repairOf`, the rejected request of the
 * same key that it corrects; one original request allows MAX_REPAIRS (3) repairs, then
 * 422 repair_limit_reached with repair.allowed = false.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();

const agents = seededAgents(t);

const hold = (requestId: string, quantity: number, repairOf?: string, sku = 'filter-blue') => ({
  requestId,
  action: 'hold_stock',
  contractVersion: 1,
  args: { sku, quantity },
  ...(repairOf ? { repairOf } : {}),
});

const submit = (agent: AgentPrincipal, body: object) => submitAs(t.db, systems.client, agent, body);
const refused = (
  run: () => Promise<unknown>,
  expected: Parameters<typeof expectRejection>[2],
  options?: Parameters<typeof expectRejection>[3],
) => expectRejection(t.db, run, expected, options);

const advice = (attemptsLeft: number) => ({ allowed: attemptsLeft > 0, attemptsLeft, maxRepairs: MAX_REPAIRS });

describe('a repair chain over its limit', () => {
  it('counts down attemptsLeft on each repair and records the root of the chain', async () => {
    expect(MAX_REPAIRS).toBe(3);
    // quantity 5 breaks the contract (1–4): a schema error the agent can repair.
    const r0 = await refused(() => submit(agents.acme, hold('chain_a0', 5)), {
      status: 422,
      kind: 'schema',
      code: 'contract_violation',
    });
    expect(r0.error.details.repair).toEqual(advice(3));
    expect(r0.attempt).toMatchObject({ requestId: 'chain_a0', repairOf: null, rootRequestId: 'chain_a0' });

    const r1 = await refused(() => submit(agents.acme, hold('chain_a1', 6, 'chain_a0')), {
      status: 422,
      code: 'contract_violation',
    });
    expect(r1.error.details.repair).toEqual(advice(2));
    expect(r1.attempt).toMatchObject({ requestId: 'chain_a1', repairOf: 'chain_a0', rootRequestId: 'chain_a0' });

    // A business-rule refusal (filter-gray holds at most 2) is repairable as well and counts the same.
    const r2 = await refused(() => submit(agents.acme, hold('chain_a2', 3, 'chain_a1', 'filter-gray')), {
      status: 422,
      kind: 'business_rule',
      code: 'hold_limit',
    });
    expect(r2.error.details.repair).toEqual(advice(1));
    expect(r2.attempt).toMatchObject({ repairOf: 'chain_a1', rootRequestId: 'chain_a0' });

    // The last repair refused: the chain ran out, and admins are told in the same transaction.
    const r3 = await refused(
      () => submit(agents.acme, hold('chain_a3', 0, 'chain_a2')),
      { status: 422, code: 'contract_violation' },
      { notices: 1 },
    );
    expect(r3.error.details.repair).toEqual(advice(0));
    expect(r3.attempt).toMatchObject({ repairOf: 'chain_a2', rootRequestId: 'chain_a0' });
  });

  it('refuses a 4th repair with 422 repair_limit_reached and repair.allowed = false, even when the candidate is valid', async () => {
    const { error, attempt } = await refused(() => submit(agents.acme, hold('chain_a4', 1, 'chain_a3')), {
      status: 422,
      kind: 'schema',
      code: 'repair_limit_reached',
    });
    expect(error.details.repair).toEqual(advice(0));
    expect(error.details.repair).toMatchObject({ allowed: false });
    expect(attempt).toMatchObject({ requestId: 'chain_a4', repairOf: 'chain_a3' });
    expect(await t.db.select().from(proposals).where(eq(proposals.requestId, 'chain_a4'))).toEqual([]);
  });

  it('refuses another branch of the exhausted chain (a second repair of the original) the same way', async () => {
    const { error } = await refused(() => submit(agents.acme, hold('chain_a5', 1, 'chain_a0')), {
      status: 422,
      code: 'repair_limit_reached',
    });
    expect(error.details.repair).toMatchObject({ allowed: false, attemptsLeft: 0 });
  });

  it('keeps the chain exhausted when the refused 4th repair is itself named as repairOf', async () => {
    // The refusal of chain_a4 belongs to chain_a0's chain; repairing it must not open a fresh budget.
    const { error } = await refused(() => submit(agents.acme, hold('chain_a6', 1, 'chain_a4')), {
      status: 422,
      code: 'repair_limit_reached',
    });
    expect(error.details.repair).toMatchObject({ allowed: false, attemptsLeft: 0 });
    expect(await t.db.select().from(proposals).where(eq(proposals.requestId, 'chain_a6'))).toEqual([]);
  });

  it('leaves a fresh request (no repairOf) free to go through', async () => {
    const { proposal, created } = await submit(agents.acme, hold('chain_a_fresh', 1));
    expect(created).toBe(true);
    expect(proposal.repairOf).toBeNull();
  });
});

describe('a valid repair within the limit', () => {
  it('is accepted, links to what it repairs, and its intake attempt records the root', async () => {
    await refused(() => submit(agents.acme, hold('chain_b0', 3, undefined, 'filter-gray')), {
      status: 422,
      code: 'hold_limit',
    });
    const b1 = await refused(() => submit(agents.acme, hold('chain_b1', 5, 'chain_b0')), {
      status: 422,
      code: 'contract_violation',
    });
    expect(b1.error.details.repair).toEqual(advice(2));

    const { proposal, created } = await submit(agents.acme, hold('chain_b2', 2, 'chain_b1', 'filter-gray'));
    expect(created).toBe(true);
    expect(proposal).toMatchObject({ requestId: 'chain_b2', repairOf: 'chain_b1', status: 'pending_approval' });
    const [attempt] = await attemptsOf(t.db, agents.acme, 'chain_b2');
    expect(attempt).toMatchObject({
      outcome: 'accepted',
      httpStatus: 201,
      proposalId: proposal.id,
      repairOf: 'chain_b1',
      rootRequestId: 'chain_b0',
    });
  });
});

describe('repairOf must name a rejected request of the same key', () => {
  it.each([
    ['an unknown requestId', 'never_sent'],
    ['an accepted requestId', 'chain_a_fresh'],
    ['an accepted repair', 'chain_b2'],
  ])('refuses %s with 422 unknown_repair_target', async (_label, target) => {
    const { error, attempt } = await refused(() => submit(agents.acme, hold(`target_${target}`, 1, target)), {
      status: 422,
      kind: 'schema',
      code: 'unknown_repair_target',
    });
    expect(
      (error.details.issues as { field: string; code: string }[]).map(({ field, code }) => ({ field, code })),
    ).toEqual([{ field: 'repairOf', code: 'unknown_repair_target' }]);
    expect(attempt.issues).toEqual([{ field: 'repairOf', code: 'unknown_repair_target' }]);
    // The target is named back only because the agent sent it; nothing else of the key's history leaks.
    expect(JSON.stringify(errorBody(error))).not.toContain('rootRequestId');
  });

  it("refuses another key's rejected request with 422 unknown_repair_target", async () => {
    await refused(() => submit(agents.globex, hold('globex_rejected', 5, undefined, 'filter-green')), {
      status: 422,
      code: 'contract_violation',
    });
    await refused(() => submit(agents.acme, hold('steal_chain', 1, 'globex_rejected')), {
      status: 422,
      code: 'unknown_repair_target',
    });
    // …while agents.globex itself may repair it.
    const { proposal } = await submit(agents.globex, hold('globex_repaired', 1, 'globex_rejected', 'filter-green'));
    expect(proposal).toMatchObject({ tenantId: 'globex', repairOf: 'globex_rejected' });
  });
});

describe('repairs and retries', () => {
  it('answers a network retry of the accepted last repair of a chain with the same proposal (200), recording only a replayed attempt', async () => {
    await refused(() => submit(agents.acme, hold('chain_d0', 5)), { status: 422, code: 'contract_violation' });
    await refused(() => submit(agents.acme, hold('chain_d1', 5, 'chain_d0')), {
      status: 422,
      code: 'contract_violation',
    });
    await refused(() => submit(agents.acme, hold('chain_d2', 5, 'chain_d1')), {
      status: 422,
      code: 'contract_violation',
    });
    const third = await submit(agents.acme, hold('chain_d3', 1, 'chain_d2'));
    expect(third.created).toBe(true);

    const counts = await rowCounts(t.db);
    const retry = await submit(agents.acme, hold('chain_d3', 1, 'chain_d2'));
    expect(retry).toEqual({ created: false, proposal: third.proposal, headers: {} });
    expect(await rowCounts(t.db)).toEqual({
      ...counts,
      intakeAttempts: counts.intakeAttempts + 1,
    }) /* the retry is recorded as a replayed attempt */;
  });

  it('answers a retry of an accepted repair with the same proposal (200) even after other branches exhausted the chain', async () => {
    await refused(() => submit(agents.acme, hold('chain_e0', 5)), { status: 422, code: 'contract_violation' });
    const accepted = await submit(agents.acme, hold('chain_e1', 1, 'chain_e0'));
    expect(accepted.created).toBe(true);
    // Two more repairs of the same original use up the chain; a third is refused.
    await refused(() => submit(agents.acme, hold('chain_e2', 5, 'chain_e0')), {
      status: 422,
      code: 'contract_violation',
    });
    await refused(
      () => submit(agents.acme, hold('chain_e3', 5, 'chain_e0')),
      { status: 422, code: 'contract_violation' },
      { notices: 1 },
    );
    await refused(() => submit(agents.acme, hold('chain_e4', 1, 'chain_e0')), {
      status: 422,
      code: 'repair_limit_reached',
    });

    // The same requestId with the same payload is a retry, not a repair: docs/design.md §4 answers it with the
    // proposal.
    const counts = await rowCounts(t.db);
    const retry = await submit(agents.acme, hold('chain_e1', 1, 'chain_e0'));
    expect(retry).toEqual({ created: false, proposal: accepted.proposal, headers: {} });
    expect(await rowCounts(t.db)).toEqual({
      ...counts,
      intakeAttempts: counts.intakeAttempts + 1,
    }) /* the retry is recorded as a replayed attempt */;
  });
});
