import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { proposals } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';
import { expectedOrder, type FixtureRow, fixtureRows, insertFixtures } from '@/test/fixtures/queue';
import { decodeCursor, PROPOSAL_SORTS, type ProposalSort } from './list-cursor';
import { pendingQueue, QUEUE_PAGE_SIZE, type QueueViewer } from './queue';
import { listProposals, type ProposalFilters } from './status-page';

const t = setupTestDatabase();
const rows = fixtureRows(121);
// Nobody has decided a fixture row and none has an agent key or editor: every one needs this approver.
const viewer: QueueViewer = { userId: 'usr_fixture_approver', role: 'approver' };

beforeAll(async () => {
  await insertFixtures(t.db, 'acme', rows);
  // Noise a walk must never return: another status in the tenant, and another tenant's pending ones.
  await insertFixtures(t.db, 'acme', fixtureRows(11, 'done'), 'approved');
  await insertFixtures(t.db, 'globex', fixtureRows(13, 'other'));
});

/** Walks every page with the given page size and returns the ids in the order served. */
async function walk(
  sort: ProposalSort,
  limit: number,
  filters: ProposalFilters = {},
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: Awaited<ReturnType<typeof listProposals>> = await listProposals(t.db, 'acme', {
      status: 'pending_approval',
      filters,
      sort,
      cursor: decodeCursor(cursor),
      limit,
    });
    pages += 1;
    expect(page.items.length).toBeLessThanOrEqual(limit);
    ids.push(...page.items.map((p) => p.id));
    cursor = page.nextCursor;
    if (pages > 200) throw new Error('the walk does not end');
  } while (cursor);
  return { ids, pages };
}

const matching = (filters: ProposalFilters) => (row: FixtureRow) =>
  (!filters.action || row.action === filters.action) &&
  (!filters.agent || row.agent === filters.agent) &&
  (!filters.risk || row.risk === filters.risk);

describe('queue keyset pages', () => {
  for (const sort of PROPOSAL_SORTS) {
    it(`walks all ${rows.length} pending proposals sorted ${sort}, without duplicates or gaps, across ties below the millisecond`, async () => {
      const expected = expectedOrder(rows, sort);
      for (const limit of [7, 50]) {
        const { ids, pages } = await walk(sort, limit);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual(expected);
        expect(pages).toBe(Math.ceil(rows.length / limit));
      }
    });

    it(`filters while walking sorted ${sort}`, async () => {
      for (const filters of [
        { action: 'issue_refund' },
        { agent: 'acme-night-bot', risk: 'high' },
        { action: 'hold_stock', agent: 'acme-support-bot', risk: 'low' },
      ]) {
        const expected = expectedOrder(rows.filter(matching(filters)), sort);
        expect(expected.length).toBeGreaterThan(3);
        expect((await walk(sort, 4, filters)).ids).toEqual(expected);
      }
    });
  }

  it('serves pendingQueue pages of QUEUE_PAGE_SIZE with the total, and a cursor of another sort is refused', async () => {
    const first = await pendingQueue(t.db, 'acme', viewer, { group: 'needs-you', sort: 'newest' });
    expect(first.items).toHaveLength(QUEUE_PAGE_SIZE);
    expect(first.total).toBe(rows.length);
    expect(first.counts).toEqual({ 'needs-you': rows.length, waiting: 0, all: rows.length });
    expect(first.items.map((item) => item.id)).toEqual(expectedOrder(rows, 'newest').slice(0, QUEUE_PAGE_SIZE));
    expect(first.items[0]).toMatchObject({ rule: 'fixture v1', approvals: { have: 0, need: 1 } });
    expect(first.items.find((item) => item.action === 'hold_stock')?.approveLabel).toMatch(/^Approve/);
    const second = await pendingQueue(
      t.db,
      'acme',
      viewer,
      { group: 'needs-you', sort: 'newest' },
      decodeCursor(first.nextCursor),
    );
    expect(second.items.map((item) => item.id)).toEqual(
      expectedOrder(rows, 'newest').slice(QUEUE_PAGE_SIZE, 2 * QUEUE_PAGE_SIZE),
    );
    expect((await pendingQueue(t.db, 'acme', viewer, { group: 'all', sort: 'expiring', risk: 'high' })).total).toBe(
      rows.filter((row) => row.risk === 'high').length,
    );
    await expect(
      pendingQueue(t.db, 'acme', viewer, { group: 'needs-you', sort: 'oldest' }, decodeCursor(first.nextCursor)),
    ).rejects.toThrow(/another sort/);
  });

  it('keeps the walk whole when rows ahead of the cursor leave and new ones arrive mid-walk', async () => {
    const sort = 'expiring';
    const first = await listProposals(t.db, 'acme', { status: 'pending_approval', sort, limit: 30 });
    const expected = expectedOrder(rows, sort);
    const leaving = expected[40]!;
    await t.db.update(proposals).set({ status: 'approved' }).where(eq(proposals.id, leaving));
    try {
      const rest: string[] = [];
      let cursor = first.nextCursor;
      while (cursor) {
        const page = await listProposals(t.db, 'acme', {
          status: 'pending_approval',
          sort,
          cursor: decodeCursor(cursor),
          limit: 30,
        });
        rest.push(...page.items.map((p) => p.id));
        cursor = page.nextCursor;
      }
      expect([...first.items.map((p) => p.id), ...rest]).toEqual(expected.filter((id) => id !== leaving));
    } finally {
      await t.db.update(proposals).set({ status: 'pending_approval' }).where(eq(proposals.id, leaving));
    }
  });
});
