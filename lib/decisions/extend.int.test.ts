import { beforeAll, describe, expect, it } from 'vitest';
import { type Proposal, policies } from '@/db/schema';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { newId } from '@/lib/ids';
import { setupTestDatabase } from '@/test/db';
import { expectApiError } from '@/test/errors';
import { submitAs } from '@/test/intake';
import { auditRowsFor, proposalRow, rowCounts } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { type PersonName, type SeededWorld, seedWorld } from '@/test/world';
import { decide } from './decide';
import { extendExpiry } from './extend';

const t = setupTestDatabase();
const systems = setupDemoSystems();

let world: SeededWorld;
let acme: AgentPrincipal;
let sequence = 0;
const HOUR = 3_600_000;

beforeAll(async () => {
  world = await seedWorld(t.db);
  acme = await world.agent('acme');
});

async function propose(now = new Date()): Promise<Proposal> {
  const body = {
    requestId: `req_extend_${++sequence}`,
    action: 'hold_stock',
    contractVersion: 1,
    args: { sku: 'filter-blue', quantity: 1 },
  };
  return (await submitAs(t.db, systems.client, acme, body, { now })).proposal;
}

const extendAs = (person: PersonName, proposal: Proposal, now?: Date) =>
  extendExpiry(t.db, { userId: world.userId(person), proposalId: proposal.id }, now);

describe('extendExpiry', () => {
  it('extends a pending proposal once by the time first granted, audited; a second extension is refused', async () => {
    const proposal = await propose();
    expect(proposal.expiresAt.getTime() - proposal.createdAt.getTime()).toBe(24 * HOUR);
    const now = new Date(proposal.createdAt.getTime() + 20 * HOUR);
    const extended = await extendAs('bob', proposal, now);
    expect(extended.expiresAt.getTime()).toBe(proposal.expiresAt.getTime() + 24 * HOUR);
    expect(extended.extendedAt?.getTime()).toBe(now.getTime());
    expect(extended.status).toBe('pending_approval');
    const audit = await auditRowsFor(t.db, proposal.id);
    expect(audit.map((row) => row.type)).toEqual(['proposal.created', 'proposal.extended']);
    expect(audit[1]).toMatchObject({
      actorType: 'user',
      actorId: world.userId('bob'),
      data: { from: proposal.expiresAt.toISOString(), to: extended.expiresAt.toISOString() },
    });

    const before = await rowCounts(t.db);
    await expectApiError(extendAs('alice', proposal, now), { status: 409, kind: 'decision', code: 'already_extended' });
    expect(await rowCounts(t.db)).toEqual(before);
    // The extension is real: a decision after the first expiry still counts.
    const later = new Date(proposal.expiresAt.getTime() + HOUR);
    await expect(
      decide(
        t.db,
        systems.client,
        {
          userId: world.userId('alice'),
          proposalId: proposal.id,
          request: { decision: 'approve', payloadHash: proposal.payloadHash },
        },
        later,
      ),
    ).resolves.toMatchObject({ status: 'approved' });
  });

  it('refuses a viewer (403 forbidden_role), another tenant and unknown ids (404 not_found)', async () => {
    const proposal = await propose();
    await expectApiError(extendAs('dave', proposal), { status: 403, code: 'forbidden_role' });
    await expectApiError(extendAs('erin', proposal), { status: 404, code: 'not_found' });
    await expectApiError(extendExpiry(t.db, { userId: world.userId('alice'), proposalId: newId('prp') }), {
      status: 404,
      code: 'not_found',
    });
    expect((await proposalRow(t.db, proposal.id)).extendedAt).toBeNull();
  });

  it('refuses a decided proposal (409 already_decided)', async () => {
    const proposal = await propose();
    await decide(t.db, systems.client, {
      userId: world.userId('alice'),
      proposalId: proposal.id,
      request: { decision: 'reject', payloadHash: proposal.payloadHash, reason: 'No' },
    });
    await expectApiError(extendAs('bob', proposal), { status: 409, code: 'already_decided' });
  });

  it('refuses an overdue proposal (409 expired) and expires it: a timeout never approves', async () => {
    const proposal = await propose();
    await expectApiError(extendAs('bob', proposal, proposal.expiresAt), { status: 409, code: 'expired' });
    const row = await proposalRow(t.db, proposal.id);
    expect(row).toMatchObject({ status: 'expired', extendedAt: null, expiresAt: proposal.expiresAt });
    expect((await auditRowsFor(t.db, proposal.id)).map((r) => r.type)).toEqual([
      'proposal.created',
      'proposal.expired',
    ]);
  });

  it('extends by the policy’s own expiry (here 2 h), and an admin may extend', async () => {
    await t.db.insert(policies).values({
      id: newId('pol'),
      tenantId: 'acme',
      action: 'hold_stock',
      version: 7,
      expiryHours: 2,
      rules: [
        {
          id: 'holds-short',
          description: 'Short',
          when: null,
          outcome: 'needs_approval',
          approvals: 1,
          role: 'approver',
        },
      ],
    });
    const proposal = await propose();
    expect(proposal.expiresAt.getTime() - proposal.createdAt.getTime()).toBe(2 * HOUR);
    const extended = await extendAs('carol', proposal);
    expect(extended.expiresAt.getTime()).toBe(proposal.expiresAt.getTime() + 2 * HOUR);
  });
});
