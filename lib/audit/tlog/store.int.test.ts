import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditTreeNodes, tenants } from '@/db/schema';
import { Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { setupTestDatabase } from '@/test/db';
import { numberedChange } from '@/test/fixtures/events';
import { auditChain, databaseErrorText } from '@/test/queries';
import { eventLeafHash } from './leaf';
import { lookUp, rootOf, subtreesOf, verifyConsistency, verifyInclusion } from './merkle';
import { consistencyProof, extendTree, inclusionProof, storedTreeSize, treeRoot } from './store';

/**
 * The stored tree of a tenant's audit events (audit_tree_nodes), on PGlite and PostgreSQL: it is
 * extended from the chain page by page, agrees with the tree computed in memory from the events,
 * answers proofs that verify, and refuses to be changed.
 */
const t = setupTestDatabase();
const EVENTS = 37;

async function record(tenantId: string, times: number, from = 0): Promise<void> {
  for (let n = from; n < from + times; n++)
    await t.db.transaction((tx) => recordStateChange(tx, numberedChange(tenantId, `prp_${tenantId}`, n)));
}

/** The tree computed in memory from the tenant's chained events. */
async function expectedTree(tenantId: string) {
  const events = await auditChain(t.db, tenantId);
  return { size: events.length, node: lookUp(subtreesOf(events.map((event) => eventLeafHash(event.hash)))) };
}

beforeAll(async () => {
  await t.db.insert(tenants).values(['tree', 'other', 'empty', 'locked'].map((id) => ({ id, name: id })));
  await record('tree', EVENTS);
  await record('other', 3);
  await auditChain(t.db, 'other');
});

describe('extendTree', () => {
  it('adds the chained events page by page and agrees with the tree computed from the events', async () => {
    await auditChain(t.db, 'tree');
    expect(await storedTreeSize(t.db, 'tree')).toBe(0);
    expect(await extendTree(t.db, 'tree', 8)).toBe(EVENTS);
    const { size, node } = await expectedTree('tree');
    expect(size).toBe(EVENTS);
    for (let n = 0; n <= EVENTS; n++)
      expect(Buffer.from(await treeRoot(t.db, 'tree', n)).toString('hex')).toBe(
        Buffer.from(rootOf(n, node)).toString('hex'),
      );
  });

  it('is a no-op when current, and safe to run several at once', async () => {
    await record('tree', 5, EVENTS);
    await auditChain(t.db, 'tree');
    const sizes = await Promise.all([
      extendTree(t.db, 'tree', 2),
      extendTree(t.db, 'tree', 3),
      extendTree(t.db, 'tree'),
    ]);
    expect(sizes).toEqual([EVENTS + 5, EVENTS + 5, EVENTS + 5]);
    expect(await extendTree(t.db, 'tree')).toBe(EVENTS + 5);
    const { node } = await expectedTree('tree');
    expect(await treeRoot(t.db, 'tree', EVENTS + 5)).toEqual(rootOf(EVENTS + 5, node));
    const [rows] = await t.db
      .select({ n: sql<number>`count(*)::integer` })
      .from(auditTreeNodes)
      .where(sql`${auditTreeNodes.tenantId} = 'tree'`);
    // Every complete subtree once: 42 leaves make 42 + 21 + 10 + 5 + 2 + 1 subtrees.
    expect(rows?.n).toBe(42 + 21 + 10 + 5 + 2 + 1);
  });

  it('keeps tenants apart: the empty tenant has the empty tree, another tenant its own', async () => {
    expect(await extendTree(t.db, 'empty')).toBe(0);
    expect(Buffer.from(await treeRoot(t.db, 'empty', 0)).toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(await extendTree(t.db, 'other')).toBe(3);
    const { node } = await expectedTree('other');
    expect(await treeRoot(t.db, 'other', 3)).toEqual(rootOf(3, node));
  });
});

describe('proofs from the stored tree', () => {
  it('proves every event of every size included, extending the tree when it is behind', async () => {
    const { size, node } = await expectedTree('tree');
    for (let treeSize = 1; treeSize <= size; treeSize += 5) {
      const root = rootOf(treeSize, node);
      for (let seq = 1; seq <= treeSize; seq++) {
        const proof = await inclusionProof(t.db, 'tree', seq, treeSize);
        expect(verifyInclusion(proof.index, treeSize, node({ level: 0, index: seq - 1 }), proof.hashes, root)).toBe(
          true,
        );
      }
    }
  });

  it('proves every earlier size consistent with later ones', async () => {
    const { size, node } = await expectedTree('tree');
    for (let from = 1; from <= size; from += 3) {
      for (const to of [from, from + 1, size]) {
        if (to > size) continue;
        const proof = await consistencyProof(t.db, 'tree', from, to);
        expect(verifyConsistency(from, to, proof.hashes, rootOf(from, node), rootOf(to, node))).toBe(true);
      }
    }
  });

  it('extends the tree to answer a proof past its stored size', async () => {
    await record('tree', 3, EVENTS + 5);
    await auditChain(t.db, 'tree');
    const proof = await inclusionProof(t.db, 'tree', EVENTS + 8, EVENTS + 8);
    const { node } = await expectedTree('tree');
    expect(
      verifyInclusion(
        EVENTS + 7,
        EVENTS + 8,
        node({ level: 0, index: EVENTS + 7 }),
        proof.hashes,
        rootOf(EVENTS + 8, node),
      ),
    ).toBe(true);
    expect(await storedTreeSize(t.db, 'tree')).toBe(EVENTS + 8);
  });

  it.each([
    ['seq 0', () => inclusionProof(t.db, 'tree', 0, 5), 'event #0 is not in a tree of 5 event(s)'],
    ['seq past the size', () => inclusionProof(t.db, 'tree', 6, 5), 'event #6 is not in a tree of 5 event(s)'],
    ['a fractional seq', () => inclusionProof(t.db, 'tree', 1.5, 5), 'event #1.5 is not in a tree of 5 event(s)'],
    ['a size past the log', () => inclusionProof(t.db, 'other', 1, 4), 'the log has 3 event(s), fewer than 4'],
    ['a root past the log', () => treeRoot(t.db, 'other', 4), 'the log has 3 event(s), fewer than 4'],
    ['a negative size', () => treeRoot(t.db, 'other', -1), 'the tree size must be a whole number of events, 0 or more'],
    ['an equal pair past the log', () => consistencyProof(t.db, 'other', 9, 9), 'the log has 3 event(s), fewer than 9'],
    ['from the empty tree', () => consistencyProof(t.db, 'other', 0, 2), 'the earlier size must be 1 or more'],
    ['backwards', () => consistencyProof(t.db, 'other', 3, 2), 'the earlier size (3) is larger than the later one (2)'],
    [
      'another tenant’s size',
      () => inclusionProof(t.db, 'other', 1, EVENTS),
      `the log has 3 event(s), fewer than ${EVENTS}`,
    ],
  ])('refuses %s', async (_, run, message) => {
    const error = await run().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Refusal);
    expect((error as Refusal).code).toBe('invalid_query');
    expect((error as Error).message).toContain(message);
  });
});

describe('audit_tree_nodes is insert-only', () => {
  it.each([
    ['UPDATE', sql`update audit_tree_nodes set hash = repeat('0', 64) where tenant_id = 'tree'`],
    ['DELETE', sql`delete from audit_tree_nodes where tenant_id = 'tree' and level = 0 and index = 0`],
    ['TRUNCATE', sql`truncate audit_tree_nodes`],
  ])('refuses %s', async (operation, statement) => {
    const before = await treeRoot(t.db, 'tree', EVENTS);
    // The trigger holds even for the table's owner; the application's role (PostgreSQL) is refused
    // before the trigger runs, for want of the privilege (migration 0024).
    const asOwner = await t.owner.execute(statement).catch((caught: unknown) => caught);
    expect(databaseErrorText(asOwner)).toContain(`audit_tree_nodes is insert-only: ${operation} refused`);
    const asApplication = await t.db.execute(statement).catch((caught: unknown) => caught);
    expect(databaseErrorText(asApplication)).toMatch(
      new RegExp(`audit_tree_nodes is insert-only: ${operation} refused|permission denied for table audit_tree_nodes`),
    );
    expect(await treeRoot(t.db, 'tree', EVENTS)).toEqual(before);
  });

  it('refuses a malformed row', async () => {
    const error = await t.db
      .insert(auditTreeNodes)
      .values({ tenantId: 'locked', level: 0, index: 0, hash: 'XYZ' })
      .catch((caught: unknown) => caught);
    expect(databaseErrorText(error)).toContain('audit_tree_nodes_shape');
  });
});
