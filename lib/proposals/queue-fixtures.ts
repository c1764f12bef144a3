import { sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { proposals, tenants } from '@/db/schema';

/** Test data for the queue: proposals inserted directly, with microsecond timestamps and ties. */
export type FixtureRow = { id: string; action: string; agent: string; risk: string; createdAt: string; expiresAt: string };

const BASE = Date.parse('2030-01-01T10:00:00.000Z');

/** An ISO timestamp with microseconds, `minutes` after the base plus `micros`. */
function stamp(minutes: number, micros: number): string {
  const ms = BASE + minutes * 60_000 + Math.floor(micros / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(micros % 1000).padStart(3, '0')}Z`);
}

/**
 * `n` pending proposals in `tenant`: ids are not in time order, several share a timestamp (the id
 * decides), and some differ only below the millisecond.
 */
export function fixtureRows(n: number, prefix = 'p'): FixtureRow[] {
  const actions = ['hold_stock', 'issue_refund'];
  const agents = ['acme-support-bot', 'acme-billing-bot', 'acme-night-bot'];
  const risks = ['low', 'medium', 'high'];
  return Array.from({ length: n }, (_, i) => {
    const shuffled = (i * 37) % n; // a permutation when gcd(37, n) = 1
    return {
      id: `${prefix}_${String(shuffled).padStart(4, '0')}`,
      action: actions[i % 2]!,
      agent: agents[i % 3]!,
      risk: risks[(i >> 1) % 3]!,
      createdAt: stamp(Math.floor(i / 4), (i % 4 === 3 ? 0 : (i % 4) * 7)), // groups of four, ties at micro 0
      expiresAt: stamp(1440 - (i % 10), i % 5 === 0 ? 0 : (i * 13) % 1000), // ten expiry slots, many ties
    };
  });
}

export async function ensureTenant(db: Database, id: string): Promise<void> {
  await db.insert(tenants).values({ id, name: id }).onConflictDoNothing();
}

/** Inserts fixture rows as proposals (with the given status) exactly as given, microseconds included. */
export async function insertFixtures(db: Database, tenantId: string, rows: FixtureRow[], status: 'pending_approval' | 'approved' = 'pending_approval'): Promise<void> {
  await ensureTenant(db, tenantId);
  await db.insert(proposals).values(
    rows.map((row) => ({
      id: row.id,
      tenantId,
      agentName: row.agent,
      action: row.action,
      contractVersion: 1,
      status,
      payload: { action: row.action, contractVersion: 1, tenantId, args: row.action === 'hold_stock' ? { sku: 'filter-blue', quantity: 1 } : { orderId: 'ord_1842', amountMinor: 100, currency: 'USD', reason: 'test' }, evidenceRefs: [] },
      payloadHash: `sha256:${'0'.repeat(64)}`,
      rawCandidate: '{}',
      gates: [],
      routing: { rule: 'fixture', policyVersion: 1, outcome: 'needs_approval' as const, approvals: 1, role: 'approver' as const },
      risk: row.risk,
      createdAt: sql`${row.createdAt}::timestamptz`,
      expiresAt: sql`${row.expiresAt}::timestamptz`,
    })),
  );
}

/** The order a sort must produce, computed independently of SQL (ids are lower-case ASCII, so collation agrees). */
export function expectedOrder(rows: FixtureRow[], sort: 'expiring' | 'newest' | 'oldest'): string[] {
  const key = (row: FixtureRow) => (sort === 'expiring' ? row.expiresAt : row.createdAt);
  const sorted = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return (sort === 'newest' ? sorted.reverse() : sorted).map((row) => row.id);
}
