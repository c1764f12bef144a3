import { type Hash, leafHash } from './merkle';

/**
 * A tenant's tree has one leaf per audit event: leaf i is the event with seq i+1, and its data are
 * the 32 bytes of that event's chain hash (`hash`, "sha256:<hex>"), which covers every field of the
 * event and the hash before it (docs/evidence.md, "The log format"). A verifier holding one
 * exported event recomputes its `hash` from its fields, then this.
 */
export function eventLeafHash(eventHash: string): Hash {
  const hex = /^sha256:([0-9a-f]{64})$/.exec(eventHash)?.[1];
  if (!hex) throw new TypeError('an event hash is "sha256:" and 64 lowercase hex digits');
  return leafHash(Buffer.from(hex, 'hex'));
}

/** The leaf of the event with this seq. */
export function leafIndex(seq: number): number {
  return seq - 1;
}
