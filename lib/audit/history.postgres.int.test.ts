import { type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { BULK_PERSON, insertBulkAuditEvents } from '@/test/fixtures/audit';
import { explainPlan } from '@/test/queries';
import {
  decisionsPage,
  decisionsQuery,
  decodeDecisionCursor,
  eventsPage,
  eventsQuery,
  HISTORY_PAGE_SIZE,
} from './history';
import type { HistoryFilters } from './history-filters';

/**
 * The history's pages are answered by indexes on PostgreSQL at a million events, never by reading or sorting
 * audit_events.
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') {
  throw new Error('history.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');
}

beforeAll(async () => {
  // 1,000,000 events: 400,000 of acme's (with its proposals), 200,000 each of three other tenants.
  await insertBulkAuditEvents(t.owner, 'acme', 400_000, { proposals: true });
  for (const tenant of ['tenant_1', 'tenant_2', 'tenant_3'])
    await insertBulkAuditEvents(t.owner, tenant, 200_000, { proposals: true });
  await t.owner.execute(sql`analyze audit_events`);
  await t.owner.execute(sql`analyze proposals`);
}, 600_000);

const explain = (query: SQLWrapper) => explainPlan(t.db, query);

const EVENT_FILTERS: [string, HistoryFilters][] = [
  ['no filter', {}],
  ['an event type', { type: 'proposal.rejected' }],
  ['a person', { person: BULK_PERSON }],
  ['a date range', { since: new Date('2030-03-01T00:00:00Z'), until: new Date('2030-03-08T00:00:00Z') }],
  ['an action', { action: 'hold_stock' }],
  ['an agent and an outcome', { agent: 'night-bot', outcome: 'rejected' }],
  ['a proposal id', { q: 'prp_acmep1234' }],
  ['text', { q: 'rejected' }],
  [
    'a person, a type and dates',
    {
      person: BULK_PERSON,
      type: 'proposal.created',
      since: new Date('2030-02-01T00:00:00Z'),
      until: new Date('2030-06-01T00:00:00Z'),
    },
  ],
];

describe('history query plans at 1M audit events (PostgreSQL)', () => {
  it.each(EVENT_FILTERS)(
    'events filtered by %s: first and next page use an index, no Seq Scan or Sort on audit_events',
    async (_what, filters) => {
      const first = await eventsPage(t.db, 'acme', filters);
      const plans = [await explain(eventsQuery(t.db, 'acme', filters, { order: 'desc' }, HISTORY_PAGE_SIZE + 1))];
      if (first.nextCursor)
        plans.push(
          await explain(
            eventsQuery(
              t.db,
              'acme',
              filters,
              { order: 'desc', before: Number(first.nextCursor) },
              HISTORY_PAGE_SIZE + 1,
            ),
          ),
        );
      plans.push(await explain(eventsQuery(t.db, 'acme', filters, { order: 'asc', after: 1000 }, 1000)));
      if (process.env.SHOW_PLANS) console.log(_what, plans.join('\n---\n'));
      for (const plan of plans) {
        expect(plan, plan).toMatch(/Index (Only )?Scan( Backward)? using audit_events_\w+ on audit_events/);
        expect(plan, plan).not.toMatch(/Seq Scan on audit_events/);
        expect(plan, plan).not.toMatch(/Sort\b[^\n]*\n[^\n]*audit_events/);
        expect(plan, plan).not.toMatch(/^\s*(->\s*)?Sort\b/m);
      }
    },
  );

  it.each([
    ['no filter', {}],
    ['an action', { action: 'hold_stock' }],
    ['an outcome', { outcome: 'rejected' }],
    ['a date range', { since: new Date('2030-01-10T00:00:00Z'), until: new Date('2030-01-20T00:00:00Z') }],
  ] as [string, HistoryFilters][])(
    'decisions filtered by %s: first and next page from proposals_decided_idx, no Sort',
    async (_what, filters) => {
      const first = await decisionsPage(t.db, 'acme', filters);
      expect(first.nextCursor).not.toBeNull();
      for (const cursor of [undefined, decodeDecisionCursor(first.nextCursor!)]) {
        const plan = await explain(decisionsQuery(t.db, 'acme', filters, cursor, HISTORY_PAGE_SIZE + 1));
        expect(plan, plan).toContain('proposals_decided_idx');
        expect(plan, plan).not.toMatch(/Seq Scan on proposals/);
        expect(plan, plan).not.toMatch(/^\s*(->\s*)?Sort\b/m);
      }
    },
  );
});
