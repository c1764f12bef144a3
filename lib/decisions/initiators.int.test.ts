import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { decisions, type Proposal } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { reviseProposal } from '@/lib/decisions/revise';
import { submitProposal } from '@/lib/intake/intake';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { auditRowsFor, proposalRow } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { decide } from './decide';
import { initiatorsOf } from './initiators';

/** docs/design.md §6: every editor in a chain of revisions counts as an initiator of the final revision. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
let world: SeededWorld;
let acme: AgentPrincipal;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

const approveAs = (person: PersonName, proposal: Proposal) =>
  decide(t.db, systems.client, {
    userId: world.userId(person),
    proposalId: proposal.id,
    request: { decision: 'approve', payloadHash: proposal.payloadHash },
  });

const reviseAs = (person: PersonName, proposal: Proposal, quantity: number) =>
  reviseProposal(t.db, systems.client, {
    reason: 'Edited in a test',
    userId: world.userId(person),
    proposalId: proposal.id,
    args: { sku: 'filter-blue', quantity },
  });

describe('an edit chain', () => {
  it('bars every editor of any revision from approving the final one; someone outside the chain may', async () => {
    const body = {
      requestId: 'req_chain_1',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 2 },
    };
    const { proposal: a } = await submitProposal(
      t.db,
      acme,
      { text: JSON.stringify(body), value: body },
      systems.client,
    );
    const a2 = await reviseAs('alice', a, 3);
    const a3 = await reviseAs('bob', a2, 1);
    expect([a2.parentId, a3.parentId]).toEqual([a.id, a2.id]);
    expect(await initiatorsOf(t.db, a3)).toEqual(new Set([world.userId('alice'), world.userId('bob')]));
    expect(await initiatorsOf(t.db, a)).toEqual(new Set());

    const before = { row: await proposalRow(t.db, a3.id), audit: await auditRowsFor(t.db, a3.id) };
    for (const person of ['alice', 'bob'] as const) {
      await expectApiError(approveAs(person, a3), { status: 403, code: 'self_approval' });
    }
    expect({ row: await proposalRow(t.db, a3.id), audit: await auditRowsFor(t.db, a3.id) }).toEqual(before);
    expect(await t.db.select().from(decisions).where(eq(decisions.proposalId, a3.id))).toEqual([]);

    await expect(approveAs('carol', a3)).resolves.toMatchObject({ id: a3.id, status: 'approved' });
  });
});
