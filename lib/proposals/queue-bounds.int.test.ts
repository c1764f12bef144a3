import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { bulkId, insertBulk } from '@/test/fixtures/pending-bulk';
import { decodeCursor, PROPOSAL_SORTS, type ProposalSort } from './list-cursor';
import {
  pendingQueue,
  QUEUE_COUNT_LIMIT,
  QUEUE_PAGE_SIZE,
  QUEUE_SCAN_LIMIT,
  type QueuePage,
  type QueueView,
  type QueueViewer,
  queueFilterChoices,
} from './queue';

/**
 * What one queue request reads is bounded whatever the queue's size (issue 23): a page looks at
 * QUEUE_SCAN_LIMIT pending proposals at most, the counts at QUEUE_COUNT_LIMIT. The answers stay
 * whole: walking the cursors still serves every proposal of a group once, in order.
 */
const t = setupTestDatabase();
const approver: QueueViewer = { userId: 'usr_bounds_approver', role: 'approver' };

const N = QUEUE_SCAN_LIMIT + 600;
// Routed to an admin, so waiting on others for an approver: both past the first page's look.
const ADMIN = [QUEUE_SCAN_LIMIT + 200, QUEUE_SCAN_LIMIT + 500];
const HIGH = 7;
const id = (g: number) => bulkId('q', g);
const numbers = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

beforeAll(async () => {
  await insertBulk(t.db, 'acme', N, { tag: 'q', admin: ADMIN, high: [HIGH] });
  // Ended ones by another agent: never in the queue, nor among its agents.
  await insertBulk(t.db, 'acme', 30, { tag: 'old', status: 'succeeded', agents: ['old-bot'] });
  await insertBulk(t.db, 'globex', QUEUE_COUNT_LIMIT, { tag: 'g', admin: [1, 2, 3] });
  await insertBulk(t.db, 'initech', QUEUE_COUNT_LIMIT + 1, { tag: 'i', admin: [QUEUE_COUNT_LIMIT + 1] });
}, 120_000);

/** Every page of a view, following the cursors to the end. */
async function walk(
  tenantId: string,
  viewer: QueueViewer,
  view: QueueView,
): Promise<{ ids: string[]; pages: QueuePage[] }> {
  const pages: QueuePage[] = [];
  let cursor: string | null = null;
  do {
    const page: QueuePage = await pendingQueue(t.db, tenantId, viewer, view, decodeCursor(cursor));
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 200) throw new Error('the walk does not end');
  } while (cursor);
  return { ids: pages.flatMap((page) => page.items.map((item) => item.id)), pages };
}

const inOrder = (sort: ProposalSort, gs: number[]) => (sort === 'newest' ? [...gs].reverse() : gs).map(id);

describe('a queue longer than one request reads', () => {
  it.each(PROPOSAL_SORTS)(
    'a group rare among the pending (sorted %s): short pages with a cursor, and the walk finds every one once, ' +
      'in order',
    async (sort) => {
      const { ids, pages } = await walk('acme', approver, { group: 'waiting', sort });
      expect(ids).toEqual(inOrder(sort, ADMIN));
      if (sort !== 'newest') {
        // The first page looked at the first QUEUE_SCAN_LIMIT pending proposals, found none, and says where to look on.
        expect(pages[0]!.items).toEqual([]);
        expect(pages[0]!.nextCursor).not.toBeNull();
      }
      expect(pages).toHaveLength(2);
    },
  );

  it('a group common among them pages as before: full pages, every proposal once, in order', async () => {
    const { ids, pages } = await walk('acme', approver, { group: 'needs-you', sort: 'expiring' });
    expect(ids).toEqual(
      numbers(N)
        .filter((g) => !ADMIN.includes(g))
        .map(id),
    );
    expect(pages.slice(0, -1).every((page) => page.items.length === QUEUE_PAGE_SIZE)).toBe(true);
  });

  it('a filter rare among them is bounded the same way', async () => {
    const { ids, pages } = await walk('acme', approver, { group: 'all', sort: 'expiring', risk: 'high' });
    expect(ids).toEqual([id(HIGH)]);
    expect(pages[0]!.items.map((item) => item.id)).toEqual([id(HIGH)]);
    expect(pages[0]!.nextCursor).not.toBeNull();
  });

  it('counts exactly up to QUEUE_COUNT_LIMIT pending proposals', async () => {
    const page = await pendingQueue(t.db, 'globex', approver, { group: 'waiting', sort: 'expiring' });
    expect(page.countsExact).toBe(true);
    expect(page.counts).toEqual({ 'needs-you': QUEUE_COUNT_LIMIT - 3, waiting: 3, all: QUEUE_COUNT_LIMIT });
    expect(page.total).toBe(3);
  });

  it('past QUEUE_COUNT_LIMIT, counts what it read: lower bounds, none above the limit', async () => {
    const initech = await pendingQueue(t.db, 'initech', approver, { group: 'needs-you', sort: 'expiring' });
    expect(initech.countsExact).toBe(false);
    expect(initech.counts).toEqual({ 'needs-you': QUEUE_COUNT_LIMIT, waiting: 1, all: QUEUE_COUNT_LIMIT });
    const acme = await pendingQueue(t.db, 'acme', approver, { group: 'waiting', sort: 'expiring' });
    expect(acme.countsExact).toBe(false);
    // The two waiting on an admin are past the proposals counted: at least 0, and at least 1,000 in all.
    expect(acme.counts).toEqual({ 'needs-you': QUEUE_COUNT_LIMIT, waiting: 0, all: QUEUE_COUNT_LIMIT });
  });

  it('lists the agents with something pending, each once, in name order', async () => {
    expect((await queueFilterChoices(t.db, 'acme')).agents).toEqual(['bulk-a', 'bulk-b']);
    expect((await queueFilterChoices(t.db, 'umbrella')).agents).toEqual([]);
  });
});
