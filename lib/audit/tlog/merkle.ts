import { createHash } from 'node:crypto';

/**
 * The RFC 6962 / RFC 9162 Merkle tree of a log (docs/evidence.md, "The log format"): hashing, the
 * nodes a root or a proof is made of, and the proof checks. Pure: where the hashes of complete
 * subtrees come from (memory, audit_tree_nodes) is the caller's business.
 *
 * Sizes and indexes are JavaScript numbers, checked to be safe integers; bit operations are written
 * as arithmetic because JavaScript's bitwise operators cut to 32 bits.
 */

export type Hash = Uint8Array;

/** A complete subtree: the 2^level leaves from index·2^level on. Level 0 is a leaf. */
export type NodeId = { level: number; index: number };

/** The leaves [start, end) of a tree. */
export type LeafRange = { start: number; end: number };

export const HASH_SIZE = 32;

/** RFC 6962 §2.1: the hash of an empty tree, SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/** RFC 6962 §2.1: MTH({d}) = SHA-256(0x00 || d). */
export function leafHash(data: Uint8Array): Hash {
  return createHash('sha256').update(Uint8Array.of(0)).update(data).digest();
}

/** RFC 6962 §2.1: an interior node, SHA-256(0x01 || left || right). */
export function nodeHash(left: Hash, right: Hash): Hash {
  return createHash('sha256').update(Uint8Array.of(1)).update(left).update(right).digest();
}

export function sameHash(a: Hash, b: Hash): boolean {
  return a.length === b.length && Buffer.from(a).equals(Buffer.from(b));
}

function isSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/** The largest power of two smaller than n (n ≥ 2): where RFC 6962 splits a tree of n leaves. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The complete subtrees that make up the leaves [start, end), left to right, each as large as it
 * can be: the nodes to fetch to hash that range.
 */
export function rangeNodes({ start, end }: LeafRange): NodeId[] {
  const nodes: NodeId[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) level++;
    nodes.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return nodes;
}

/**
 * MTH(D[start:end]) of a range RFC 6962's recursion produces (start is a multiple of the power of
 * two at or above its length), from its complete subtrees: the right one is folded into the left.
 */
export function rangeHash(range: LeafRange, node: (id: NodeId) => Hash): Hash {
  const nodes = rangeNodes(range);
  if (nodes.length === 0) return EMPTY_ROOT;
  let hash = node(nodes[nodes.length - 1]!);
  for (let i = nodes.length - 2; i >= 0; i--) hash = nodeHash(node(nodes[i]!), hash);
  return hash;
}

/** RFC 6962 §2.1.1 PATH(m, D[n]): the ranges whose hashes prove leaf `index` in a tree of `size`, lowest first. */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!isSize(index) || !isSize(size) || index >= size) throw new RangeError(`no leaf ${index} in a tree of ${size}`);
  const path = (m: number, start: number, n: number): LeafRange[] => {
    if (n === 1) return [];
    const k = splitPoint(n);
    return m < k
      ? [...path(m, start, k), { start: start + k, end: start + n }]
      : [...path(m - k, start + k, n - k), { start, end: start + k }];
  };
  return path(index, 0, size);
}

/**
 * RFC 6962 §2.1.2 PROOF(m, D[n]): the ranges whose hashes prove the tree of `size1` a prefix of the tree of `size2`.
 */
export function consistencyRanges(size1: number, size2: number): LeafRange[] {
  if (!isSize(size1) || !isSize(size2) || size1 > size2)
    throw new RangeError(`no consistency proof from a tree of ${size1} to one of ${size2}`);
  if (size1 === 0 || size1 === size2) return [];
  const subproof = (m: number, start: number, n: number, whole: boolean): LeafRange[] => {
    if (m === n) return whole ? [] : [{ start, end: start + n }];
    const k = splitPoint(n);
    return m <= k
      ? [...subproof(m, start, k, whole), { start: start + k, end: start + n }]
      : [...subproof(m - k, start + k, n - k, false), { start, end: start + k }];
  };
  return subproof(size1, 0, size2, true);
}

/** Every complete subtree the ranges are made of, each once: what to fetch before hashing them. */
export function nodesOf(ranges: readonly LeafRange[]): NodeId[] {
  const seen = new Map<string, NodeId>();
  for (const range of ranges) for (const id of rangeNodes(range)) seen.set(`${id.level}:${id.index}`, id);
  return [...seen.values()];
}

export function nodeKey({ level, index }: NodeId): string {
  return `${level}:${index}`;
}

/**
 * RFC 9162 §2.1.3.2: does `proof` take the leaf hash at `index` to `root` in a tree of `size`?
 * False for any malformed input (wrong lengths, an index outside the tree, a proof too long or short).
 */
export function verifyInclusion(index: number, size: number, leaf: Hash, proof: readonly Hash[], root: Hash): boolean {
  if (!isSize(index) || !isSize(size) || index >= size) return false;
  if (leaf.length !== HASH_SIZE || root.length !== HASH_SIZE || proof.some((hash) => hash.length !== HASH_SIZE))
    return false;
  let r = leaf;
  const ended = climb(index, size - 1, proof, (p, left) => {
    r = left ? nodeHash(p, r) : nodeHash(r, p);
  });
  return ended && sameHash(r, root);
}

/**
 * RFC 9162 §2.1.4.2: does `proof` show the tree of `size1` with `root1` a prefix of the tree of
 * `size2` with `root2`? Equal sizes need equal roots and an empty proof; a proof from the empty
 * tree proves nothing and is refused, as transparency-dev's verifier does.
 */
export function verifyConsistency(
  size1: number,
  size2: number,
  proof: readonly Hash[],
  root1: Hash,
  root2: Hash,
): boolean {
  if (!isSize(size1) || !isSize(size2) || size1 > size2 || size1 === 0) return false;
  if (root1.length !== HASH_SIZE || root2.length !== HASH_SIZE || proof.some((hash) => hash.length !== HASH_SIZE))
    return false;
  if (size1 === size2) return proof.length === 0 && sameHash(root1, root2);
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = size1 - 1;
  let sn = size2 - 1;
  while (fn % 2 === 1) {
    fn = (fn - 1) / 2;
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  const ended = climb(fn, sn, path.slice(1), (c, left) => {
    if (left) fr = nodeHash(c, fr);
    sr = left ? nodeHash(c, sr) : nodeHash(sr, c);
  });
  return ended && sameHash(fr, root1) && sameHash(sr, root2);
}

/**
 * RFC 9162's walk up the tree shared by both checks: for each proof hash, from the node at `fn` on
 * the path to `sn` (the last leaf), tells `visit` whether the hash is the left sibling, moving both
 * up as the RFC's steps say. True when the proof ends exactly at the root (`sn` reaches 0 with it).
 */
function climb(fn: number, sn: number, proof: readonly Hash[], visit: (hash: Hash, left: boolean) => void): boolean {
  for (const hash of proof) {
    if (sn === 0) return false;
    const left = fn % 2 === 1 || fn === sn;
    visit(hash, left);
    if (left) {
      while (fn % 2 === 0 && fn !== 0) {
        fn /= 2;
        sn = Math.floor(sn / 2);
      }
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0;
}

function isPowerOfTwo(n: number): boolean {
  let k = 1;
  while (k < n) k *= 2;
  return k === n;
}

/** A complete subtree with its hash. */
export type SubtreeHash = { id: NodeId; hash: Hash };

/**
 * Appends the leaf at index `size` to `peaks`, the complete subtrees of a tree of `size` leaves
 * (rangeNodes({start: 0, end: size}) with their hashes), merging equal ones as RFC 6962 does.
 * Answers every subtree the leaf completes, the leaf first.
 */
export function appendLeaf(peaks: SubtreeHash[], size: number, hash: Hash): SubtreeHash[] {
  const leaf = { id: { level: 0, index: size }, hash };
  const completed = [leaf];
  peaks.push(leaf);
  for (let top = peaks.length - 1; top > 0 && peaks[top]!.id.level === peaks[top - 1]!.id.level; top--) {
    const right = peaks.pop()!;
    const left = peaks.pop()!;
    const parent = {
      id: { level: left.id.level + 1, index: left.id.index / 2 },
      hash: nodeHash(left.hash, right.hash),
    };
    peaks.push(parent);
    completed.push(parent);
  }
  return completed;
}

/** Every complete subtree of the tree of these leaf hashes, by nodeKey: a tree held in memory. */
export function subtreesOf(leaves: readonly Hash[]): Map<string, Hash> {
  const nodes = new Map<string, Hash>();
  const peaks: SubtreeHash[] = [];
  leaves.forEach((hash, index) => {
    for (const { id, hash: h } of appendLeaf(peaks, index, hash)) nodes.set(nodeKey(id), h);
  });
  return nodes;
}

/** A node looked up in a map of subtrees; a missing one is a bug in the caller, not a hash. */
export function lookUp(nodes: ReadonlyMap<string, Hash>): (id: NodeId) => Hash {
  return (id) => {
    const hash = nodes.get(nodeKey(id));
    if (!hash) throw new Error(`subtree ${nodeKey(id)} is missing`);
    return hash;
  };
}

/** MTH of the first `size` leaves of a tree whose subtrees `node` answers. */
export function rootOf(size: number, node: (id: NodeId) => Hash): Hash {
  return rangeHash({ start: 0, end: size }, node);
}

/** The hashes of a proof's ranges, in order. */
export function proofHashes(ranges: readonly LeafRange[], node: (id: NodeId) => Hash): Hash[] {
  return ranges.map((range) => rangeHash(range, node));
}
