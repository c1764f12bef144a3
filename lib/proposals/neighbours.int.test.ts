import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { agentKeys, decisions, type ProposalStatus, proposals } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';
import { ensureTenant } from '@/test/fixtures/queue';
import { type SeededWorld, seedWorld } from '@/test/world';
import { neighboursOf } from './neighbours';
import { RESOURCE_HISTORY_SIZE, resourceHistory, resourceLabel } from './resource-history';

/** `j`/`k` on the proposal page and "other proposals on this resource" (issue 13). */
const t = setupTestDatabase();
let world: SeededWorld;
let onBehalfKey: string;
const NOW = new Date('2030-01-01T12:00:00.000Z');

type Row = {
  id: string;
  tenant?: string;
  status?: ProposalStatus;
  /** Expiry as microsecond text, so ties below the millisecond are real. */
  expiresAt?: string;
  createdAt?: string;
  resourceKey?: string;
  role?: 'approver' | 'admin';
  initiatedBy?: string;
  agentKeyId?: string;
};

async function insert(rows: Row[]) {
  for (const tenant of new Set(rows.map((row) => row.tenant ?? 'acme'))) await ensureTenant(t.db, tenant);
  await t.db.insert(proposals).values(
    rows.map((row) => {
      const tenantId = row.tenant ?? 'acme';
      return {
        id: row.id,
        tenantId,
        agentName: 'acme-support-bot',
        agentKeyId: row.agentKeyId ?? null,
        action: 'hold_stock',
        contractVersion: 1,
        status: row.status ?? 'pending_approval',
        payload: {
          action: 'hold_stock',
          contractVersion: 1,
          tenantId,
          args: { sku: 'filter-blue', quantity: 1 },
          evidenceRefs: [],
        },
        payloadHash: `sha256:${'0'.repeat(64)}`,
        rawCandidate: '{}',
        gates: [],
        routing: {
          rule: 'fixture',
          policyVersion: 1,
          outcome: 'needs_approval' as const,
          approvals: 1,
          role: row.role ?? 'approver',
        },
        resourceKey: row.resourceKey ?? null,
        initiatedByUserId: row.initiatedBy ?? null,
        createdAt: sql`${row.createdAt ?? '2030-01-01T10:00:00.000000Z'}::timestamptz`,
        expiresAt: sql`${row.expiresAt ?? '2030-01-02T10:00:00.000000Z'}::timestamptz`,
      };
    }),
  );
}

const at = (micros: number) => `2030-01-02T10:00:00.${String(micros).padStart(6, '0')}Z`;

beforeAll(async () => {
  world = await seedWorld(t.db);
  [{ id: onBehalfKey }] = (await t.db
    .select({ id: agentKeys.id })
    .from(agentKeys)
    .where(eq(agentKeys.tenantId, 'acme'))
    .limit(1)) as [{ id: string }];
  await t.db
    .update(agentKeys)
    .set({ onBehalfOfUserId: world.userId('bob') })
    .where(eq(agentKeys.id, onBehalfKey));
  // The queue in order: n_a … n_h by (expires_at, id); ties below the millisecond and on the time itself.
  await insert([
    { id: 'n_c', expiresAt: at(1) },
    { id: 'n_a', expiresAt: at(0) },
    { id: 'n_b', expiresAt: at(0) },
    { id: 'n_d', expiresAt: at(900), role: 'admin' },
    { id: 'n_e', expiresAt: at(901), initiatedBy: world.userId('alice') },
    { id: 'n_f', expiresAt: at(902), agentKeyId: onBehalfKey },
    { id: 'n_g', expiresAt: at(903) },
    { id: 'n_h', expiresAt: at(904) },
    // Never a neighbour: overdue but not yet swept, decided, another tenant's.
    { id: 'n_0', expiresAt: '2030-01-01T11:00:00.000000Z' },
    { id: 'n_bb', expiresAt: at(0), status: 'approved' },
    { id: 'n_x', expiresAt: at(2), tenant: 'globex' },
  ]);
  await t.db.insert(decisions).values({
    id: 'dec_1',
    tenantId: 'acme',
    proposalId: 'n_g',
    userId: world.userId('alice'),
    decision: 'approve',
    payloadHash: `sha256:${'0'.repeat(64)}`,
  });
});

const alice = () => ({ userId: world.userId('alice'), role: 'approver' as const });

describe('neighboursOf (j and k on the proposal page)', () => {
  it.each([
    // [who, from, previous, next]
    ['alice (approver)', 'n_a', null, 'n_b'],
    ['alice (approver)', 'n_b', 'n_a', 'n_c'],
    // n_d needs an admin, n_e alice edited, n_f's agent acts for bob (not alice), n_g alice decided.
    ['alice (approver)', 'n_c', 'n_b', 'n_f'],
    ['alice (approver)', 'n_f', 'n_c', 'n_h'],
    ['alice (approver)', 'n_h', 'n_f', null],
    // Bob: the agent of n_f acts for him.
    ['bob (approver)', 'n_e', 'n_c', 'n_g'],
    // Carol is an admin: n_d is hers to decide.
    ['carol (admin)', 'n_c', 'n_b', 'n_d'],
    // Dave reads: every pending proposal is a neighbour.
    ['dave (viewer)', 'n_f', 'n_e', 'n_g'],
  ] as const)('%s from %s: previous %s, next %s', async (who, from, previous, next) => {
    const name = who.split(' ')[0] as 'alice' | 'bob' | 'carol' | 'dave';
    const role = who.includes('admin') ? 'admin' : who.includes('viewer') ? 'viewer' : 'approver';
    expect(await neighboursOf(t.db, 'acme', from, { userId: world.userId(name), role }, NOW)).toEqual({
      previous,
      next,
    });
  });

  it('keeps a decided proposal’s place in the order, and skips overdue ones', async () => {
    expect(await neighboursOf(t.db, 'acme', 'n_bb', alice(), NOW)).toEqual({ previous: 'n_b', next: 'n_c' });
    expect(await neighboursOf(t.db, 'acme', 'n_0', alice(), NOW)).toEqual({ previous: null, next: 'n_a' });
  });

  it('stays inside the tenant: another tenant’s id has no neighbours, and globex sees only its own', async () => {
    expect(await neighboursOf(t.db, 'acme', 'n_x', alice(), NOW)).toEqual({ previous: null, next: null });
    expect(await neighboursOf(t.db, 'globex', 'n_c', alice(), NOW)).toEqual({ previous: null, next: null });
    expect(await neighboursOf(t.db, 'globex', 'n_x', { userId: world.userId('erin'), role: 'approver' }, NOW)).toEqual({
      previous: null,
      next: null,
    });
  });
});

describe('resourceHistory (other proposals on the same resource)', () => {
  beforeAll(async () => {
    const created = (i: number) => `2030-01-01T09:${String(i).padStart(2, '0')}:00.000000Z`;
    await insert([
      ...Array.from({ length: 13 }, (_, i) => ({
        id: `r_${String(i).padStart(2, '0')}`,
        resourceKey: 'order:ord_1842',
        createdAt: created(i),
        status: (i % 2 ? 'rejected' : 'succeeded') as ProposalStatus,
      })),
      // A tie on created_at: the id decides.
      { id: 'r_12b', resourceKey: 'order:ord_1842', createdAt: created(12) },
      { id: 'r_other', resourceKey: 'order:ord_1843', createdAt: created(30) },
      { id: 'r_globex', tenant: 'globex', resourceKey: 'order:ord_1842', createdAt: created(40) },
    ]);
  });

  it('lists the newest ten others on the resource, any status, without the proposal itself', async () => {
    const list = await resourceHistory(t.db, 'acme', 'order:ord_1842', 'r_11');
    expect(list).toHaveLength(RESOURCE_HISTORY_SIZE);
    expect(list.map((item) => item.id)).toEqual([
      'r_12b',
      'r_12',
      'r_10',
      'r_09',
      'r_08',
      'r_07',
      'r_06',
      'r_05',
      'r_04',
      'r_03',
    ]);
    expect(list[1]).toMatchObject({
      status: 'succeeded',
      summary: expect.stringMatching(/filter-blue/),
      agent: 'acme-support-bot',
    });
    expect(list[2]!.createdAt).toBeInstanceOf(Date);
  });

  it('never shows another tenant’s or another resource’s proposals', async () => {
    expect((await resourceHistory(t.db, 'globex', 'order:ord_1842', 'none')).map((item) => item.id)).toEqual([
      'r_globex',
    ]);
    expect(await resourceHistory(t.db, 'acme', 'order:ord_1843', 'r_other')).toEqual([]);
  });

  it('names the resource for people', () => {
    expect(resourceLabel('order:ord_1842')).toBe('ord_1842');
    expect(resourceLabel('sku:filter-blue')).toBe('filter-blue');
    expect(resourceLabel('plain')).toBe('plain');
  });
});
