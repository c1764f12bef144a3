import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import consistencyProbes from '@/test/vectors/transparency-dev-merkle/consistency.json';
import inclusionProbes from '@/test/vectors/transparency-dev-merkle/inclusion.json';
import rfc6962 from '@/test/vectors/transparency-dev-merkle/rfc6962.json';
import {
  consistencyRanges,
  EMPTY_ROOT,
  type Hash,
  inclusionRanges,
  leafHash,
  lookUp,
  nodeKey,
  proofHashes,
  rootOf,
  subtreesOf,
  verifyConsistency,
  verifyInclusion,
} from './merkle';

/**
 * RFC 6962 hashing and proofs against transparency-dev's vectors (test/vectors/transparency-dev-merkle/README.md), then
 * generated trees.
 */

const hex = (value: Hash) => Buffer.from(value).toString('hex');
const b64 = (value: string | null) => Buffer.from(value ?? '', 'base64');
const leaves = rfc6962.leafInputs.map((input) => leafHash(Buffer.from(input, 'hex')));
const vectorTree = lookUp(subtreesOf(leaves));

describe('RFC 6962 hashing (transparency-dev testonly/constants.go)', () => {
  it('hashes every complete subtree of the eight leaves as the vectors say', () => {
    const nodes = subtreesOf(leaves);
    const expected = rfc6962.nodeHashes.flatMap((level, l) =>
      level.map((hash, index) => [nodeKey({ level: l, index }), hash] as const),
    );
    expect([...nodes].map(([key, hash]) => [key, hex(hash)]).sort()).toEqual([...expected].sort());
  });

  it('has the root of every prefix of the leaves, the empty tree included', () => {
    expect(hex(EMPTY_ROOT)).toBe(rfc6962.rootHashes[0]);
    expect(rfc6962.rootHashes.map((_, size) => hex(rootOf(size, vectorTree)))).toEqual(rfc6962.rootHashes);
  });
});

describe('proof checks (transparency-dev testdata/inclusion and testdata/consistency)', () => {
  it.each(inclusionProbes.map((probe) => [probe.file, probe] as const))('inclusion %s', (_, probe) => {
    expect(
      verifyInclusion(
        probe.leafIdx,
        probe.treeSize,
        b64(probe.leafHash),
        (probe.proof ?? []).map(b64),
        b64(probe.root),
      ),
    ).toBe(!probe.wantErr);
  });

  // The one deliberate difference: Go accepts two equal 12-byte "roots" for equal sizes; a root
  // that is not 32 bytes is refused here, whatever the sizes.
  const stricter = new Set(['testdata/consistency/additional/sizes-are-equal-one-and-proof-is-empty.json']);

  it.each(consistencyProbes.map((probe) => [probe.file, probe] as const))('consistency %s', (file, probe) => {
    expect(
      verifyConsistency(probe.size1, probe.size2, (probe.proof ?? []).map(b64), b64(probe.root1), b64(probe.root2)),
    ).toBe(!probe.wantErr && !stricter.has(file));
  });

  it('generates exactly the proofs of the happy paths', () => {
    const happyInclusion = inclusionProbes.filter((probe) => !probe.wantErr);
    const happyConsistency = consistencyProbes.filter((probe) => !probe.wantErr);
    expect(happyInclusion.length).toBeGreaterThan(0);
    expect(happyConsistency.length).toBeGreaterThan(0);
    for (const probe of happyInclusion) {
      expect(proofHashes(inclusionRanges(probe.leafIdx, probe.treeSize), vectorTree).map(hex)).toEqual(
        (probe.proof ?? []).map((hash) => hex(b64(hash))),
      );
    }
    for (const probe of happyConsistency) {
      expect(proofHashes(consistencyRanges(probe.size1, probe.size2), vectorTree).map(hex)).toEqual(
        (probe.proof ?? []).map((hash) => hex(b64(hash))),
      );
    }
  });
});

/** A tree of n leaves, leaf i the hash of "<salt>:<i>": two salts make two trees that differ in every leaf. */
function tree(n: number, salt = 'a', forkAt = -1) {
  const hashes = Array.from({ length: n }, (_, i) =>
    leafHash(Buffer.from(`${i >= forkAt && forkAt >= 0 ? 'fork' : salt}:${i}`)),
  );
  return { leaves: hashes, node: lookUp(subtreesOf(hashes)) };
}

const flipBit = (hash: Hash, bit: number) => {
  const copy = Buffer.from(hash);
  copy[(bit >> 3) % copy.length]! ^= 1 << (bit & 7);
  return copy;
};

/**
 * Every single change of a proof's array: each hash with a bit flipped, each hash dropped, duplicated or swapped with
 * its neighbour, a hash added at each end.
 */
function proofChanges(proof: Hash[], bit: number, extra: Hash): Hash[][] {
  const changed: Hash[][] = [];
  proof.forEach((_, i) => {
    changed.push(proof.map((hash, j) => (i === j ? flipBit(hash, bit) : hash)));
    changed.push(proof.filter((__, j) => j !== i));
    changed.push([...proof.slice(0, i + 1), proof[i]!, ...proof.slice(i + 1)]);
    if (i + 1 < proof.length && hex(proof[i]!) !== hex(proof[i + 1]!))
      changed.push(proof.map((hash, j) => (j === i ? proof[i + 1]! : j === i + 1 ? proof[i]! : hash)));
  });
  changed.push([extra, ...proof], [...proof, extra]);
  return changed;
}

describe('every proof of small trees', () => {
  it('verifies every inclusion and every consistency proof up to 40 leaves', () => {
    for (let n = 1; n <= 40; n++) {
      const { leaves: hashes, node } = tree(n);
      const root = rootOf(n, node);
      for (let i = 0; i < n; i++)
        expect(verifyInclusion(i, n, hashes[i]!, proofHashes(inclusionRanges(i, n), node), root)).toBe(true);
      for (let m = 1; m <= n; m++)
        expect(verifyConsistency(m, n, proofHashes(consistencyRanges(m, n), node), rootOf(m, node), root)).toBe(true);
    }
  });
});

describe('properties of generated trees', () => {
  const sizeAndIndex = fc
    .integer({ min: 1, max: 300 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 })));

  it('an inclusion proof verifies, and no single change of proof, index, size, leaf or root does', () => {
    fc.assert(
      fc.property(
        sizeAndIndex,
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 600 }),
        fc.integer({ min: 0, max: 600 }),
        ([n, i], bit, otherIndex, otherSize) => {
          const { leaves: hashes, node } = tree(Math.max(n, otherSize));
          const root = rootOf(n, node);
          const proof = proofHashes(inclusionRanges(i, n), node);
          expect(verifyInclusion(i, n, hashes[i]!, proof, root)).toBe(true);
          for (const changed of proofChanges(proof, bit, hashes[0]!))
            expect(verifyInclusion(i, n, hashes[i]!, changed, root)).toBe(false);
          if (otherIndex !== i) expect(verifyInclusion(otherIndex, n, hashes[i]!, proof, root)).toBe(false);
          // The size is bound to its root by the checkpoint's signature, so a changed size comes with
          // that size's root: a proof never pins the size alone (leaf 0 of 129 and of 130 have proofs
          // of the same shape).
          if (otherSize !== n)
            expect(verifyInclusion(i, otherSize, hashes[i]!, proof, rootOf(otherSize, node))).toBe(false);
          expect(verifyInclusion(i, n, flipBit(hashes[i]!, bit), proof, root)).toBe(false);
          expect(verifyInclusion(i, n, hashes[i]!, proof, flipBit(root, bit))).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a consistency proof verifies for m ≤ n, and fails for a forked tree and for any single change', () => {
    const sizes = fc
      .integer({ min: 1, max: 300 })
      .chain((n) => fc.tuple(fc.integer({ min: 1, max: n }), fc.constant(n)));
    fc.assert(
      fc.property(
        sizes,
        fc.integer({ min: 0, max: 255 }),
        fc.nat(),
        fc.integer({ min: 0, max: 600 }),
        ([m, n], bit, forkSeed, otherSize) => {
          const { node } = tree(Math.max(n, otherSize));
          const root1 = rootOf(m, node);
          const root2 = rootOf(n, node);
          const proof = proofHashes(consistencyRanges(m, n), node);
          expect(verifyConsistency(m, n, proof, root1, root2)).toBe(true);
          // A fork: the later tree differs from some leaf of the earlier one on.
          const forked = tree(n, 'a', forkSeed % m);
          expect(hex(rootOf(m, forked.node))).not.toBe(hex(root1));
          const forkedRoot = rootOf(n, forked.node);
          expect(verifyConsistency(m, n, proof, root1, forkedRoot)).toBe(false);
          expect(verifyConsistency(m, n, proofHashes(consistencyRanges(m, n), forked.node), root1, forkedRoot)).toBe(
            false,
          );
          for (const changed of proofChanges(proof, bit, root1))
            expect(verifyConsistency(m, n, changed, root1, root2)).toBe(false);
          // A changed size comes with its own root (see the inclusion property).
          if (otherSize !== m && otherSize <= n)
            expect(verifyConsistency(otherSize, n, proof, rootOf(otherSize, node), root2)).toBe(
              otherSize === n && proof.length === 0,
            );
          if (otherSize !== n && otherSize >= m)
            expect(verifyConsistency(m, otherSize, proof, root1, rootOf(otherSize, node))).toBe(false);
          expect(verifyConsistency(m, n, proof, flipBit(root1, bit), root2)).toBe(false);
          expect(verifyConsistency(m, n, proof, root1, flipBit(root2, bit))).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});
