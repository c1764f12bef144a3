import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTreeNodes, tenants } from '@/db/schema';
import { type PlanNode, setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { consistencyRanges, inclusionRanges, nodesOf, rangeNodes } from './merkle';
import { consistencyProof, extendTree, inclusionProof, TREE_PAGE, treeRoot } from './store';

/**
 * What the tree costs (PostgreSQL): extending it reads the chain in bounded pages, and a root or a
 * proof is one statement reading O(log n) rows by the primary key, whatever the log's size —
 * counted on a real tree of 5,000 events and on a tree of 1,000,000 leaves.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'store.postgres.int.test.ts');
const EVENTS = 5_000;
const MILLION = 1_000_000;

/** Every node of a plan, depth first. */
function nodesOfPlan(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOfPlan)];
}

beforeAll(async () => {
  await t.db.insert(tenants).values([
    { id: 'bulk', name: 'bulk' },
    { id: 'million', name: 'million' },
  ]);
  // Events written straight into the chain's table: the tree reads only `seq` and `hash`.
  await t.owner.execute(sql`
    insert into audit_events (tenant_id, seq, type, actor_type, actor_id, data, occurred_at, prev_hash, hash)
    select 'bulk', i, 'proposal.extended', 'system', 'test', '{}'::jsonb, now(), 'sha256:genesis',
           'sha256:' || encode(sha256(convert_to(i::text, 'UTF8')), 'hex')
    from generate_series(1, ${EVENTS}) as i`);
  // A tree of a million leaves, of which only the subtrees the proofs and roots below read are
  // stored (any hash): what a statement reads depends on the subtrees asked for, not on the others.
  const size = MILLION;
  const ids = nodesOf([
    { start: 0, end: size },
    ...inclusionRanges(0, size),
    ...inclusionRanges(size - 1, size),
    ...inclusionRanges(654_321, size),
    ...consistencyRanges(777_777, size),
  ]);
  const rows = [
    ...new Map(
      [...ids, ...rangeNodes({ start: 0, end: size }), { level: 0, index: size - 1 }].map((id) => [
        `${id.level}:${id.index}`,
        id,
      ]),
    ).values(),
  ];
  await t.db
    .insert(auditTreeNodes)
    .values(rows.map((id) => ({ tenantId: 'million', level: id.level, index: id.index, hash: 'ab'.repeat(32) })));
});

describe('extending the tree', () => {
  it('reads the chain in pages of TREE_PAGE events and writes each page in one statement', async () => {
    const sent = await counting.statementsSentBy(() => extendTree(counting.db, 'bulk'));
    const reads = sent.filter((statement) => /from "audit_events"/.test(statement.query));
    const writes = sent.filter((statement) => /insert into "audit_tree_nodes"/.test(statement.query));
    // The stored size, then 5 full pages and the empty read that ends them, one insert per page.
    expect(reads).toHaveLength(EVENTS / TREE_PAGE + 1);
    expect(reads.every((statement) => statement.params.includes(TREE_PAGE))).toBe(true);
    expect(writes).toHaveLength(EVENTS / TREE_PAGE);
    expect(sent).toHaveLength(1 + reads.length + writes.length);
  });

  it('costs two statements when the tree is current', async () => {
    expect(await counting.statementsOf(() => extendTree(counting.db, 'bulk'))).toBe(2);
  });
});

describe('roots and proofs cost one statement of O(log n) rows', () => {
  const cases: [string, string, number, () => Promise<unknown>][] = [
    ['the root of 5,000 events', 'bulk', EVENTS, () => treeRoot(counting.db, 'bulk', EVENTS)],
    ['an inclusion proof in 5,000', 'bulk', EVENTS, () => inclusionProof(counting.db, 'bulk', 1_234, EVENTS)],
    ['a consistency proof to 5,000', 'bulk', EVENTS, () => consistencyProof(counting.db, 'bulk', 3_333, EVENTS)],
    ['the root of 1,000,000', 'million', MILLION, () => treeRoot(counting.db, 'million', MILLION)],
    [
      'the first event’s proof in 1,000,000',
      'million',
      MILLION,
      () => inclusionProof(counting.db, 'million', 1, MILLION),
    ],
    [
      'the last event’s proof in 1,000,000',
      'million',
      MILLION,
      () => inclusionProof(counting.db, 'million', MILLION, MILLION),
    ],
    [
      'a proof in the middle of 1,000,000',
      'million',
      MILLION,
      () => inclusionProof(counting.db, 'million', 654_322, MILLION),
    ],
    [
      'a consistency proof to 1,000,000',
      'million',
      MILLION,
      () => consistencyProof(counting.db, 'million', 777_777, MILLION),
    ],
  ];

  it.each(cases)('%s', async (_, _tenant, size, run) => {
    const sent = await counting.statementsSentBy(run);
    expect(sent).toHaveLength(1);
    const plan = await counting.analyzedPlan(sent[0]!);
    const nodes = nodesOfPlan(plan);
    expect(nodes.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'audit_tree_nodes')).toBe(
      false,
    );
    const log2 = Math.ceil(Math.log2(size));
    expect(plan['Actual Rows']).toBeGreaterThan(0);
    expect(plan['Actual Rows']).toBeLessThanOrEqual(2 * log2 + 2);
    const removed = nodes.reduce(
      (sum, node) => sum + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0),
      0,
    );
    expect(removed).toBeLessThanOrEqual(2 * log2 + 2);
  });
});
