import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { decisions, type ProposalStatus, proposals } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';
import { insertListRows, LIST_FIXTURE_STATUSES, type ListRow, listRows } from '@/test/fixtures/proposal-list';
import { expectedOrder } from '@/test/fixtures/queue';
import { type SeededWorld, seedWorld } from '@/test/world';
import { listViewFromSearch, type ProposalListView, parseListParams, proposalListPage, resolveSearch } from './list';
import { encodeCursor } from './list-cursor';

/** The Proposals list: every status, filters, search by resource, agent and decider, keyset pages, tenant isolation. */
const t = setupTestDatabase();
let world: SeededWorld;
let rows: ListRow[];

beforeAll(async () => {
  world = await seedWorld(t.db);
  rows = listRows(97, [world.userId('alice'), world.userId('bob')]);
  await insertListRows(t.db, 'acme', rows);
  // Another tenant's proposals on look-alike resources, by a look-alike agent, decided by its own member.
  await insertListRows(t.db, 'globex', listRows(23, [world.userId('erin')], 'g'));
});

/** Walks every page of a view and returns the ids in the order served. */
async function walk(view: ProposalListView, limit: number, tenantId = 'acme'): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; ; pages++) {
    if (pages > 100) throw new Error('the walk does not end');
    const parsed = parseListParams(new URLSearchParams(cursor ? { cursor } : {}));
    if (!parsed.ok) throw new Error(parsed.messages.join(' '));
    const page = await proposalListPage(t.db, tenantId, view, parsed.cursor, limit);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((item) => item.id));
    cursor = page.nextCursor;
    if (!cursor) return ids;
  }
}

const expected = (keep: (row: ListRow) => boolean) => expectedOrder(rows.filter(keep), 'newest');

describe('proposalListPage', () => {
  it('lists every proposal of the tenant, newest first, page after page without gaps or duplicates (ties below the millisecond included)', async () => {
    for (const limit of [7, 25, 200]) {
      const ids = await walk({}, limit);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expected(() => true));
    }
  });

  it.each(LIST_FIXTURE_STATUSES)('filters by status %s', async (status) => {
    const want = expected((row) => row.status === status);
    expect(want.length).toBeGreaterThan(3);
    expect(await walk({ status }, 4)).toEqual(want);
  });

  it.each([
    ['an order id', 'ord_1843', (row: ListRow) => row.resourceKey === 'order:ord_1843', 'resource'],
    ['a full resource key', 'order:ord_1842', (row: ListRow) => row.resourceKey === 'order:ord_1842', 'resource'],
    ['a SKU', 'filter-gray', (row: ListRow) => row.resourceKey === 'sku:filter-gray', 'resource'],
    ['an agent', 'acme-night-bot', (row: ListRow) => row.agent === 'acme-night-bot', 'agent'],
    ['a decider’s name', 'Alice', (row: ListRow) => row.deciders.includes(world.userId('alice')), 'decider'],
    ['a decider’s name in other case', 'bob', (row: ListRow) => row.deciders.includes(world.userId('bob')), 'decider'],
    [
      'a decider’s email in other case',
      'ALICE@acme.test',
      (row: ListRow) => row.deciders.includes(world.userId('alice')),
      'decider',
    ],
  ] as const)('finds by %s (%s)', async (_what, q, keep, kind) => {
    const want = expected(keep);
    expect(want.length).toBeGreaterThan(3);
    expect(await walk({ q }, 5)).toEqual(want);
    expect((await resolveSearch(t.db, 'acme', q)).kind).toBe(kind);
  });

  it('combines a search with a status', async () => {
    const want = expected((row) => row.resourceKey === 'sku:filter-blue' && row.status === 'rejected');
    expect(want.length).toBeGreaterThan(0);
    expect(await walk({ q: 'filter-blue', status: 'rejected' }, 2)).toEqual(want);
  });

  it.each([
    ['another tenant’s order', 'order:ord_9999'],
    ['a term that names nothing', 'nobody-at-all'],
    ['another tenant’s member', 'erin@globex.test'],
    ['a partial order id (search is exact)', 'ord_18'],
  ])('finds nothing for %s, and says what it looked for', async (_what, q) => {
    const page = await proposalListPage(t.db, 'acme', { q });
    expect(page).toEqual({ items: [], nextCursor: null, target: { kind: 'none', term: q } });
  });

  it('never shows another tenant’s proposals, whatever the search', async () => {
    const globexIds = new Set(await walk({}, 50, 'globex'));
    expect(globexIds.size).toBe(23);
    for (const view of [
      {},
      { q: 'ord_1843' },
      { q: 'acme-support-bot' },
      { q: 'Alice' },
      { status: 'stale' as ProposalStatus },
    ]) {
      expect((await walk(view, 50)).filter((id) => globexIds.has(id))).toEqual([]);
    }
    expect(await walk({ q: 'Alice' }, 50, 'globex')).toEqual([]);
  });

  it('words each row: summary, who decided, and the reason for a stale or expired one', async () => {
    const page = await proposalListPage(t.db, 'acme', { status: 'stale' }, undefined, 200);
    expect(page.items[0]).toMatchObject({ status: 'stale', reason: expect.stringContaining('order balance changed') });
    const expired = await proposalListPage(t.db, 'acme', { status: 'expired' }, undefined, 1);
    expect(expired.items[0]?.reason).toContain('a timeout never approves');
    const bob = await proposalListPage(t.db, 'acme', { q: 'bob' }, undefined, 200);
    expect(bob.items.every((item) => item.deciders.some((d) => d.name === 'Bob'))).toBe(true);
    const refund = bob.items.find((item) => item.action === 'issue_refund');
    expect(refund?.summary).toMatch(/^Refund 15\.00 EUR on order ord_184[23]$/);
  });
});

describe('withdrawn approvals on the list', () => {
  it('counts only the approvals that stand, as the proposal page does, and marks the withdrawn one', async () => {
    // Bob approved, then his role dropped (lib/quorum/quorum.ts writes withdrawn_at); Alice approved after. The rule
    // needs two.
    const [row] = listRows(1, [], 'w');
    await insertListRows(t.db, 'withdrawals', [
      { ...row!, status: 'pending_approval', deciders: [world.userId('bob'), world.userId('alice')] },
    ]);
    await t.db
      .update(proposals)
      .set({ routing: sql`jsonb_set(${proposals.routing}, '{approvals}', '2')` })
      .where(eq(proposals.id, row!.id));
    await t.db
      .update(decisions)
      .set({ withdrawnAt: new Date(), withdrawnReason: 'role_changed', withdrawnRole: 'viewer' })
      .where(and(eq(decisions.proposalId, row!.id), eq(decisions.userId, world.userId('bob'))));
    const [item] = (await proposalListPage(t.db, 'withdrawals', {})).items;
    expect(item?.approvals).toEqual({ standing: 1, required: 2 });
    expect(item?.deciders).toEqual(
      expect.arrayContaining([
        { name: 'Bob', decision: 'approve', withdrawn: true },
        { name: 'Alice', decision: 'approve', withdrawn: false },
      ]),
    );
  });
});

describe('list parameters', () => {
  const cursor = encodeCursor({ sort: 'newest', at: '2030-01-01T10:00:00.000000Z', id: 'l_0001' });
  it.each([
    ['', { ok: true, view: {} }],
    ['status=all', { ok: true, view: {} }],
    ['status=stale&q=%20ord_1843%20', { ok: true, view: { status: 'stale', q: 'ord_1843' } }],
    ['q=%20%20', { ok: true, view: {} }],
    [
      `cursor=${cursor}`,
      { ok: true, view: {}, cursor: { sort: 'newest', at: '2030-01-01T10:00:00.000000Z', id: 'l_0001' } },
    ],
  ])('reads %j', (search, want) => {
    expect(parseListParams(new URLSearchParams(search))).toEqual(want);
  });

  it.each([
    ['status=bogus', 'status must be all or one of pending_approval'],
    ['status=stale&status=expired', 'status is given more than once'],
    ['sort=newest', 'Unknown query parameter: sort'],
    [`q=${'x'.repeat(201)}`, 'q must be at most 200 characters'],
    ['cursor=nonsense', 'cursor is not one this list returned'],
    [
      `cursor=${encodeCursor({ sort: 'expiring', at: '2030-01-01T10:00:00.000000Z', id: 'l_0001' })}`,
      'cursor is not one this list returned',
    ],
  ])('refuses %j in words', (search, words) => {
    const parsed = parseListParams(new URLSearchParams(search));
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.messages.join(' ')).toContain(words);
  });

  it('keeps what is valid in a page URL and drops the rest', () => {
    expect(listViewFromSearch({ status: 'bogus', q: 'ord_1843', cursor: 'nonsense' })).toEqual({
      view: { q: 'ord_1843' },
    });
    expect(listViewFromSearch({ status: ['stale', 'expired'], q: 'x'.repeat(300) })).toEqual({ view: {} });
    expect(listViewFromSearch({ status: 'failed' })).toEqual({ view: { status: 'failed' } });
  });
});
