import { z } from 'zod';
import type { AuditEvent } from '@/db/schema';
import { auditHashInput, GENESIS_HASH } from '@/lib/events/append';
import { payloadHash } from '@/lib/payload-hash';

export type ChainPoint = { seq: number; hash: string };

export const CHAIN_START: ChainPoint = { seq: 0, hash: GENESIS_HASH };

/** Why a chain stops verifying, at the first sequence number that does not. */
export type BreakReason =
  | 'sequence' // a row is missing, inserted or out of order
  | 'prev_hash_mismatch' // a row does not name its predecessor's hash
  | 'hash_mismatch' // a row's fields do not hash to its own hash
  | 'truncated' // the chain ends before the head (or a checkpoint) says it does
  | 'checkpoint_mismatch' // the chain's hash at a signed checkpoint is not the one signed
  | 'head_mismatch' // the chain ends at the head's seq with another hash: rewritten before it
  | 'tenant_mismatch'; // a row of another tenant's chain

export type ChainVerdict = { ok: true; last: ChainPoint } | { ok: false; seq: number; reason: BreakReason };

/** The fields of a row as stored and exported: what its hash covers, plus the hash. */
export type ChainRow = Pick<
  AuditEvent,
  | 'tenantId'
  | 'seq'
  | 'type'
  | 'actorId'
  | 'proposalId'
  | 'payloadHash'
  | 'reasonCode'
  | 'contractVersion'
  | 'data'
  | 'occurredAt'
  | 'prevHash'
  | 'hash'
> & {
  actorType: string;
  /** Absent or null on events written before names were recorded. */
  actorName?: string | null;
};

/** A row as an export line or a bundle carries it (`actorName` absent in files written before names were recorded). */
export const chainRowSchema = z.object({
  tenantId: z.string(),
  seq: z.number(),
  type: z.string(),
  actorType: z.string(),
  actorId: z.string(),
  actorName: z.string().nullable().optional(),
  proposalId: z.string().nullable(),
  payloadHash: z.string().nullable(),
  reasonCode: z.string().nullable(),
  contractVersion: z.number().nullable(),
  data: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  occurredAt: z.iso.datetime({ offset: true }),
  prevHash: z.string(),
  hash: z.string(),
});

/** The hash a row's fields make (its stored `hash`, if any, is left out). */
export function rowHash(row: Omit<ChainRow, 'hash'>): string {
  // Exactly the hashed fields, whatever else the row carries.
  const {
    tenantId,
    seq,
    type,
    actorType,
    actorId,
    actorName,
    proposalId,
    reasonCode,
    contractVersion,
    data,
    occurredAt,
    prevHash,
  } = row;
  return payloadHash(
    auditHashInput({
      tenantId,
      seq,
      type,
      actorType,
      actorId,
      actorName,
      proposalId,
      payloadHash: row.payloadHash,
      reasonCode,
      contractVersion,
      data,
      occurredAt,
      prevHash,
    }),
  );
}

/** Does this row hash to its own `hash`? */
export function rowHashMatches(row: ChainRow): boolean {
  try {
    return rowHash(row) === row.hash;
  } catch {
    return false;
  }
}

/**
 * Re-verifies consecutive events of one tenant's chain after `from`: each must follow without a
 * gap, name its predecessor's hash, and hash to its own `hash`. The first event that does not is
 * where the chain broke.
 */
export function verifyChain(rows: readonly ChainRow[], from: ChainPoint): ChainVerdict {
  let last = from;
  for (const row of rows) {
    if (row.seq !== last.seq + 1) return { ok: false, seq: last.seq + 1, reason: 'sequence' };
    if (row.prevHash !== last.hash) return { ok: false, seq: row.seq, reason: 'prev_hash_mismatch' };
    if (!rowHashMatches(row)) return { ok: false, seq: row.seq, reason: 'hash_mismatch' };
    last = { seq: row.seq, hash: row.hash };
  }
  return { ok: true, last };
}

/** A signed statement that the tenant's chain had `hash` at `seq` (lib/audit/checkpoint.ts). */
export type CheckpointClaim = { tenant: string; seq: number; hash: string; at: string };

export type ChainReport =
  | { ok: true; tenant: string; through: ChainPoint; checkpoints: number }
  | { ok: false; tenant: string; seq: number; reason: BreakReason; through: ChainPoint };

/**
 * Verifies one tenant's whole chain fed in pages, in order, with constant memory: the links, the
 * hashes, the end against the head the database keeps (when given), and every signed checkpoint —
 * a checkpoint past the end is a rolled-back tail; a different hash at its seq is a fork.
 */
export function chainVerifier(tenant: string, checkpoints: readonly CheckpointClaim[] = []) {
  const wanted = new Map(checkpoints.filter((point) => point.tenant === tenant).map((point) => [point.seq, point]));
  let last = CHAIN_START;
  let broken: { seq: number; reason: BreakReason } | undefined;
  const fail = (seq: number, reason: BreakReason) => {
    broken ??= { seq, reason };
  };
  return {
    /** Feeds the next rows; stops looking once the chain broke. */
    push(rows: readonly ChainRow[]): void {
      if (broken) return;
      for (const row of rows) {
        if (row.tenantId !== tenant) return fail(last.seq + 1, 'tenant_mismatch');
        const verdict = verifyChain([row], last);
        if (!verdict.ok) return fail(verdict.seq, verdict.reason);
        last = verdict.last;
        const point = wanted.get(last.seq);
        if (point && point.hash !== last.hash) return fail(last.seq, 'checkpoint_mismatch');
      }
    },
    /** The verdict, once every row was fed; `head` is what the database says the end is. */
    finish(head?: ChainPoint): ChainReport {
      if (!broken && head && head.seq > last.seq) fail(last.seq + 1, 'truncated');
      if (!broken && head && head.seq < last.seq) fail(head.seq + 1, 'sequence');
      if (!broken && head && head.hash !== last.hash) fail(head.seq, 'head_mismatch');
      if (!broken) {
        const beyond = [...wanted.values()].filter((point) => point.seq > last.seq).sort((a, b) => a.seq - b.seq)[0];
        if (beyond) fail(last.seq + 1, 'truncated');
      }
      return broken
        ? { ok: false, tenant, ...broken, through: last }
        : { ok: true, tenant, through: last, checkpoints: wanted.size };
    },
  };
}

/**
 * The rows of a verified chain that no signed checkpoint of its tenant covers: those after the
 * newest one (a checkpoint fixes every row up to it through the hash links). Undefined when every
 * row is covered. Such rows are never reported as verified by a signature.
 */
export function uncoveredRows(
  tenant: string,
  through: ChainPoint,
  checkpoints: readonly CheckpointClaim[],
): { from: number; to: number } | undefined {
  const newest = Math.max(
    CHAIN_START.seq,
    ...checkpoints.filter((point) => point.tenant === tenant).map((point) => point.seq),
  );
  return newest < through.seq ? { from: newest + 1, to: through.seq } : undefined;
}

const REASON_WORDS: Record<BreakReason, string> = {
  sequence: 'a row is missing, inserted or out of order',
  prev_hash_mismatch: "the row does not name its predecessor's hash",
  hash_mismatch: 'the row was changed after it was written (its hash does not match its fields)',
  truncated: 'the chain ends before an event its head or a signed checkpoint vouches for (a rolled-back tail)',
  checkpoint_mismatch: 'the chain differs from a signed checkpoint here (history was rewritten: a fork)',
  head_mismatch: 'the chain ends with another hash than its head records (history before it was rewritten)',
  tenant_mismatch: "a row of another tenant's chain is mixed in",
};

export function describeBreak(reason: BreakReason): string {
  return REASON_WORDS[reason];
}
