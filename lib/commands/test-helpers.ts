/** Shared by the command tests: a world with approved proposals, their commands, and the executor. */
import { eq } from 'drizzle-orm';
import { beforeAll, beforeEach, expect } from 'vitest';
import { commands, executions, type Proposal } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { decide } from '@/lib/decisions/decide';
import type { FaultMode } from '@/lib/demo/systems/schemas';
import { createSystemsWriteClient, type SystemsWriteClient } from '@/lib/systems/client';
import { setupTestDatabase } from '@/lib/testing/db';
import { submitAs } from '@/lib/testing/intake';
import { setupDemoSystems } from '@/lib/testing/systems';
import { seedWorld, type PersonName, type SeededWorld } from '@/lib/testing/world';
import { executeCommand, type ExecuteOptions } from './execute';

export type CommandRow = typeof commands.$inferSelect;

export function setupCommandWorld() {
  const t = setupTestDatabase();
  const systems = setupDemoSystems();
  let world: SeededWorld;
  const agents = {} as { acme: AgentPrincipal; globex: AgentPrincipal };
  let sequence = 0;

  beforeAll(async () => {
    world = await seedWorld(t.db);
    agents.acme = await world.agent('acme');
    agents.globex = await world.agent('globex');
  });
  beforeEach(() => systems.reset());

  const writeClient = (scope: 'payments' | 'inventory'): SystemsWriteClient =>
    createSystemsWriteClient({ baseUrl: systems.systems.service.url, credential: systems.systems.credentials[scope], scope });

  async function propose(action: 'issue_refund' | 'hold_stock', args: Record<string, unknown>, tenant: 'acme' | 'globex' = 'acme'): Promise<Proposal> {
    const body = { requestId: `req_cmd_${++sequence}`, action, contractVersion: 1, args };
    const { proposal } = await submitAs(t.db, systems.client, agents[tenant], body);
    expect(proposal.status).toBe('pending_approval');
    return proposal;
  }

  async function approve(proposal: Proposal, person: PersonName = proposal.tenantId === 'globex' ? 'erin' : 'alice', now?: Date) {
    const decided = await decide(t.db, systems.client, { userId: world.userId(person), proposalId: proposal.id, request: { decision: 'approve', payloadHash: proposal.payloadHash } }, now);
    expect(decided.status).toBe('approved');
    return { proposal: decided, command: await commandOf(proposal.id) };
  }

  async function commandOf(proposalId: string): Promise<CommandRow> {
    const [row] = await t.db.select().from(commands).where(eq(commands.proposalId, proposalId));
    if (!row) throw new Error(`no command for ${proposalId}`);
    return row;
  }

  /** An approved refund on ord_1842 (USD, 49.99 charged) and its command. */
  const approvedRefund = (amountMinor = 100, orderId = 'ord_1842', currency = 'USD', tenant: 'acme' | 'globex' = 'acme') =>
    propose('issue_refund', { orderId, amountMinor, currency, reason: 'Customer requested a refund' }, tenant).then((p) => approve(p));

  const approvedHold = (quantity = 1, sku = 'filter-blue') => propose('hold_stock', { sku, quantity }).then((p) => approve(p));

  function execute(jws: string, scope: 'payments' | 'inventory' = 'payments', options: Partial<ExecuteOptions> = {}) {
    return executeCommand(t.db, { scope, jws, systems: systems.client, writeClient: writeClient(scope), deadlineMs: 1_000, ...options });
  }

  async function orderRefunds(orderId = 'ord_1842'): Promise<{ id: string; amountMinor: number; idempotencyKey: string }[]> {
    const response = await fetch(`${systems.systems.service.url}/orders/${orderId}`);
    return ((await response.json()) as { refunds: { id: string; amountMinor: number; idempotencyKey: string }[] }).refunds;
  }

  async function skuHolds(sku = 'filter-blue'): Promise<{ id: string; quantity: number; idempotencyKey: string }[]> {
    const response = await fetch(`${systems.systems.service.url}/skus/${sku}`);
    return ((await response.json()) as { holds: { id: string; quantity: number; idempotencyKey: string }[] }).holds;
  }

  async function fault(target: 'refunds' | 'holds', mode: FaultMode, times = 1) {
    const response = await fetch(`${systems.systems.service.url}/__faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target, mode, times }),
    });
    expect(response.ok).toBe(true);
  }

  /** A refund straight to the payments system (someone else acting on the order). */
  async function refundDirectly(orderId: string, amountMinor: number, currency: string) {
    const response = await writeClient('payments').write('/refunds', { orderId, amountMinor, currency, idempotencyKey: `direct.${++sequence}` });
    expect(response.kind).toBe('answered');
  }

  const executionsOf = (proposalId: string) => t.db.select().from(executions).where(eq(executions.proposalId, proposalId));

  return {
    t,
    systems,
    get world() {
      return world;
    },
    writeClient,
    propose,
    approve,
    commandOf,
    approvedRefund,
    approvedHold,
    execute,
    orderRefunds,
    skuHolds,
    fault,
    refundDirectly,
    executionsOf,
  };
}
