import type { AuditEvent } from '@/db/schema';
import { payloadHash } from '@/lib/payload-hash';
import { auditHashInput, GENESIS_HASH } from './append';

export type ChainPoint = { seq: number; hash: string };

export const CHAIN_START: ChainPoint = { seq: 0, hash: GENESIS_HASH };

export type ChainVerdict = { ok: true; last: ChainPoint } | { ok: false; seq: number; reason: 'gap' | 'prev_hash_mismatch' | 'hash_mismatch' };

/**
 * Re-verifies consecutive events of one tenant's chain after `from`: each must follow without a
 * gap, name its predecessor's hash, and hash to its own `hash`. The first event that does not
 * is where the chain broke.
 */
export function verifyChain(rows: readonly AuditEvent[], from: ChainPoint): ChainVerdict {
  let last = from;
  for (const row of rows) {
    if (row.seq !== last.seq + 1) return { ok: false, seq: last.seq + 1, reason: 'gap' };
    if (row.prevHash !== last.hash) return { ok: false, seq: row.seq, reason: 'prev_hash_mismatch' };
    const { hash, ...fields } = row;
    if (payloadHash(auditHashInput(fields)) !== hash) return { ok: false, seq: row.seq, reason: 'hash_mismatch' };
    last = { seq: row.seq, hash };
  }
  return { ok: true, last };
}
