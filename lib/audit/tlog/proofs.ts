import { z } from 'zod';
import { eventLeafHash } from './leaf';
import { verifyConsistency, verifyInclusion } from './merkle';
import type { TreeHead } from './note';

/**
 * Proofs as files and API answers carry them (hashes in base64, as checkpoints write the root) and
 * their offline checks against verified checkpoints: no database, no clock (docs/evidence.md, "The
 * log format").
 */

const base64Hash = z.string().regex(/^[A-Za-z0-9+/]{43}=$/, 'a hash is the base64 of 32 bytes');
const size = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/** That the event with `seq` is leaf seq-1 of the tree of `treeSize` events. */
export const inclusionProofSchema = z.strictObject({
  seq: size.describe('The event: leaf seq-1 of the tree.'),
  treeSize: size.describe(
    'The tree: the first treeSize events, the size of the checkpoint the proof is checked against.',
  ),
  hashes: z.array(base64Hash).max(64).describe('RFC 6962 PATH(seq-1, treeSize): base64 node hashes, lowest first.'),
});

/** That the tree of `fromSize` events is a prefix of the tree of `toSize` events. */
export const consistencyProofSchema = z.strictObject({
  fromSize: size.describe('The earlier checkpoint’s tree size.'),
  toSize: size.describe('The later checkpoint’s tree size.'),
  hashes: z.array(base64Hash).max(128).describe('RFC 6962 PROOF(fromSize, D[toSize]): base64 node hashes.'),
});

export type InclusionProofFile = z.infer<typeof inclusionProofSchema>;
export type ConsistencyProofFile = z.infer<typeof consistencyProofSchema>;

const decode = (hashes: readonly string[]) => hashes.map((hash) => Buffer.from(hash, 'base64'));

export class ProofError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProofError';
  }
}

/**
 * Offline: is the event (its `seq` and its chain `hash`, which the caller has recomputed from the
 * event's fields) in the tree a verified checkpoint signs? Throws ProofError in words.
 */
export function verifyEventInclusion(
  event: { seq: number; hash: string },
  proof: InclusionProofFile,
  checkpoint: TreeHead,
): void {
  const parsed = inclusionProofSchema.safeParse(proof);
  if (!parsed.success) throw new ProofError(`the inclusion proof of event #${event.seq} is malformed`);
  if (proof.seq !== event.seq) throw new ProofError(`the inclusion proof is of event #${proof.seq}, not #${event.seq}`);
  if (proof.treeSize !== checkpoint.size)
    throw new ProofError(
      `the inclusion proof of event #${event.seq} is for a tree of ${proof.treeSize} event(s); the ` +
        `checkpoint signs ${checkpoint.size}`,
    );
  let leaf: Uint8Array;
  try {
    leaf = eventLeafHash(event.hash);
  } catch {
    throw new ProofError(`event #${event.seq} has no valid hash`);
  }
  if (!verifyInclusion(event.seq - 1, proof.treeSize, leaf, decode(proof.hashes), checkpoint.rootHash)) {
    throw new ProofError(
      `event #${event.seq} is not included in checkpoint #${checkpoint.size}: the proof does not lead to its root`,
    );
  }
}

/**
 * Offline: is the later verified checkpoint's tree an extension of the earlier one's (nothing
 * before it removed, changed or reordered)? Equal sizes need equal roots. Throws ProofError.
 */
export function verifyCheckpointConsistency(earlier: TreeHead, later: TreeHead, proof: ConsistencyProofFile): void {
  if (earlier.origin !== later.origin)
    throw new ProofError(`the checkpoints are of two logs: ${earlier.origin} and ${later.origin}`);
  if (later.size < earlier.size)
    throw new ProofError(
      `the later checkpoint (#${later.size}) is smaller than the earlier one (#${earlier.size}): the log was ` +
        `rolled back`,
    );
  if (earlier.size === 0) return; // every tree extends the empty one
  const parsed = consistencyProofSchema.safeParse(proof);
  if (!parsed.success) throw new ProofError('the consistency proof is malformed');
  if (proof.fromSize !== earlier.size || proof.toSize !== later.size) {
    throw new ProofError(
      `the consistency proof is from #${proof.fromSize} to #${proof.toSize}, not from #${earlier.size} to ` +
        `#${later.size}`,
    );
  }
  if (!verifyConsistency(earlier.size, later.size, decode(proof.hashes), earlier.rootHash, later.rootHash)) {
    throw new ProofError(
      `checkpoint #${later.size} does not extend checkpoint #${earlier.size}: the log was forked or rewritten`,
    );
  }
}
