import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents, auditTreeNodes } from '@/db/schema';
import { invalidQuery } from '@/lib/errors/refusal';
import { eventLeafHash } from './leaf';
import {
  appendLeaf,
  consistencyRanges,
  type Hash,
  inclusionRanges,
  type NodeId,
  nodeKey,
  nodesOf,
  proofHashes,
  rangeNodes,
  rootOf,
  type SubtreeHash,
} from './merkle';

/**
 * Events read per statement while the tree is extended, and so subtrees written per statement (about twice as many).
 */
export const TREE_PAGE = 1_000;

/** A request the stored tree cannot answer (a size beyond the log, a seq outside the tree): the API's 400. */
const outOfRange = (reason: string) => invalidQuery([`${reason}.`]);

const hex = (hash: Hash) => Buffer.from(hash).toString('hex');

/** How many leaves the stored tree has: one indexed row. */
export async function storedTreeSize(db: Database, tenantId: string): Promise<number> {
  const [last] = await db
    .select({ index: auditTreeNodes.index })
    .from(auditTreeNodes)
    .where(and(eq(auditTreeNodes.tenantId, tenantId), eq(auditTreeNodes.level, 0)))
    .orderBy(desc(auditTreeNodes.index))
    .limit(1);
  return last ? last.index + 1 : 0;
}

/**
 * The stored hashes of these subtrees, by nodeKey, in one statement (none for no ids); absent ones are missing from the
 * map.
 */
async function subtrees(db: Database, tenantId: string, ids: readonly NodeId[]): Promise<Map<string, Hash>> {
  if (ids.length === 0) return new Map();
  const wanted = sql.join(
    ids.map((id) => sql`(${id.level}::integer, ${id.index}::bigint)`),
    sql`, `,
  );
  const rows = await db
    .select({ level: auditTreeNodes.level, index: auditTreeNodes.index, hash: auditTreeNodes.hash })
    .from(auditTreeNodes)
    .where(
      and(
        eq(auditTreeNodes.tenantId, tenantId),
        sql`(${auditTreeNodes.level}, ${auditTreeNodes.index}) in (${wanted})`,
      ),
    );
  return new Map(rows.map((row) => [nodeKey(row), Buffer.from(row.hash, 'hex')]));
}

/**
 * Adds the tenant's chained events beyond its stored tree to it, oldest first, TREE_PAGE events per
 * read and one insert per page, and answers the tree's size. Cheap when the tree is current (two
 * statements). Safe to run any number of times at once: a subtree's hash follows from events that
 * never change, so two extenders write the same rows and the second one's are skipped. Each page's
 * subtrees go in one statement, so the stored tree is always whole up to its size.
 */
export async function extendTree(db: Database, tenantId: string, page = TREE_PAGE): Promise<number> {
  let size = await storedTreeSize(db, tenantId);
  let peaks: SubtreeHash[] | undefined;
  for (;;) {
    const events = await db
      .select({ seq: auditEvents.seq, hash: auditEvents.hash })
      .from(auditEvents)
      .where(and(eq(auditEvents.tenantId, tenantId), gt(auditEvents.seq, size)))
      .orderBy(asc(auditEvents.seq))
      .limit(page);
    if (events.length === 0) return size;
    peaks ??= await peaksOf(db, tenantId, size);
    const written: SubtreeHash[] = [];
    for (const event of events) {
      if (event.seq !== size + 1)
        throw new Error(`audit event seq ${size + 1} of tenant ${tenantId} is missing: the chain has a gap`);
      written.push(...appendLeaf(peaks, size, eventLeafHash(event.hash)));
      size++;
    }
    await insertSubtrees(db, tenantId, written);
    if (events.length < page) return size;
  }
}

/**
 * Writes subtrees, skipping any already there. Three array literals rather than four parameters a
 * row: a page's ~2,000 rows parse and plan as one short statement (every value is a number or hex).
 */
async function insertSubtrees(db: Database, tenantId: string, written: readonly SubtreeHash[]): Promise<void> {
  const array = (values: readonly (string | number)[]) => `{${values.join(',')}}`;
  await db.execute(sql`
    insert into ${auditTreeNodes} (tenant_id, level, index, hash)
    select ${tenantId}, level, index, hash
    from unnest(
      ${array(written.map(({ id }) => id.level))}::integer[],
      ${array(written.map(({ id }) => id.index))}::bigint[],
      ${array(written.map(({ hash }) => hex(hash)))}::text[]
    ) as w(level, index, hash)
    on conflict do nothing`);
}

/** The complete subtrees of the first `size` leaves, left to right, with their hashes. */
async function peaksOf(db: Database, tenantId: string, size: number): Promise<SubtreeHash[]> {
  const ids = rangeNodes({ start: 0, end: size });
  const found = await subtrees(db, tenantId, ids);
  return ids.map((id) => {
    const hash = found.get(nodeKey(id));
    if (!hash) throw new Error(`subtree ${nodeKey(id)} of tenant ${tenantId} is missing below the stored size ${size}`);
    return { id, hash };
  });
}

/**
 * The hashes of these subtrees, read in one statement; when some are missing (the tree is behind
 * the size asked for), the tree is extended and they are read again. A size beyond the chain's
 * head is refused.
 */
async function nodesFor(
  db: Database,
  tenantId: string,
  wanted: readonly NodeId[],
  size: number,
): Promise<(id: NodeId) => Hash> {
  // The tree's leaf size-1 is read with them: its presence shows the stored tree reaches `size`.
  const ids = [
    ...new Map(
      [...wanted, ...(size > 0 ? [{ level: 0, index: size - 1 }] : [])].map((id) => [nodeKey(id), id]),
    ).values(),
  ];
  let found = await subtrees(db, tenantId, ids);
  if (found.size < ids.length) {
    const extended = await extendTree(db, tenantId);
    if (extended < size) throw outOfRange(`the log has ${extended} event(s), fewer than ${size}`);
    found = await subtrees(db, tenantId, ids);
  }
  return (id) => {
    const hash = found.get(nodeKey(id));
    if (!hash) throw new Error(`subtree ${nodeKey(id)} of tenant ${tenantId} is missing`);
    return hash;
  };
}

function checkSize(size: number, what: string): void {
  if (!Number.isSafeInteger(size) || size < 0) throw outOfRange(`${what} must be a whole number of events, 0 or more`);
}

/**
 * The root of the tenant's tree of its first `size` events: O(log size) rows in one statement when the tree is current.
 */
export async function treeRoot(db: Database, tenantId: string, size: number): Promise<Hash> {
  checkSize(size, 'the tree size');
  const ids = rangeNodes({ start: 0, end: size });
  return rootOf(size, await nodesFor(db, tenantId, ids, size));
}

/** An RFC 6962 inclusion proof: leaf `index` (the event with seq index+1) in the tree of `treeSize` events. */
export type InclusionProof = { seq: number; index: number; treeSize: number; hashes: Hash[] };

/** An RFC 6962 consistency proof between the tenant's trees of `fromSize` and `toSize` events. */
export type ConsistencyProof = { fromSize: number; toSize: number; hashes: Hash[] };

/** The proof that the event with `seq` is in the tenant's tree of its first `treeSize` events. */
export async function inclusionProof(
  db: Database,
  tenantId: string,
  seq: number,
  treeSize: number,
): Promise<InclusionProof> {
  checkSize(treeSize, 'the tree size');
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > treeSize)
    throw outOfRange(`event #${seq} is not in a tree of ${treeSize} event(s)`);
  const ranges = inclusionRanges(seq - 1, treeSize);
  const node = await nodesFor(db, tenantId, nodesOf(ranges), treeSize);
  return { seq, index: seq - 1, treeSize, hashes: proofHashes(ranges, node) };
}

/** The proof that the tenant's tree of `fromSize` events is a prefix of its tree of `toSize` events. */
export async function consistencyProof(
  db: Database,
  tenantId: string,
  fromSize: number,
  toSize: number,
): Promise<ConsistencyProof> {
  checkSize(fromSize, 'the earlier size');
  checkSize(toSize, 'the later size');
  if (fromSize === 0)
    throw outOfRange('the earlier size must be 1 or more: every tree extends the empty one, so no proof is needed');
  if (fromSize > toSize) throw outOfRange(`the earlier size (${fromSize}) is larger than the later one (${toSize})`);
  const ranges = consistencyRanges(fromSize, toSize);
  const node = await nodesFor(db, tenantId, nodesOf(ranges), toSize);
  return { fromSize, toSize, hashes: proofHashes(ranges, node) };
}
