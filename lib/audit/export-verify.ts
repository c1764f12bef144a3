import { z } from 'zod';
import type { PublicJwk } from '@/lib/commands/keys';
import { CheckpointError, checkpointFileSchema, verifyCheckpoint } from './checkpoint';
import { CHAIN_START, chainRowSchema, chainVerifier, describeBreak, rowHashMatches, uncoveredRows, type BreakReason, type ChainPoint, type ChainRow, type CheckpointClaim } from './verify';

/**
 * The last line of every JSON Lines export (lib/audit/export.ts): what the export selected, how many
 * rows it wrote, and a checkpoint signed at export time for its last row — the same fields
 * `GET /api/v1/audit/checkpoint` answers, so the line also serves as a saved checkpoint. Only the
 * checkpoint is signed; `of`, `filters`, `filtered` and `rows` are the file's own word.
 */
export const EXPORT_END_FORMAT = 'countersign.export-end/1';

export const exportEndSchema = checkpointFileSchema.extend({
  format: z.literal(EXPORT_END_FORMAT),
  of: z.enum(['events', 'decisions']),
  filtered: z.boolean(),
  filters: z.record(z.string(), z.string()),
  rows: z.int().min(0),
  tenant: z.string(),
  seq: z.int().min(0),
  hash: z.string(),
  at: z.string(),
});

export type ExportEnd = z.infer<typeof exportEndSchema>;

/** Why an export file cannot even be read as a chain: the line and what is wrong with it. */
export type ExportUnreadable = { ok: false; unreadable: true; line: number; message: string };

/**
 * What an export establishes. `ok` only when every row is on the chain from genesis and covered by
 * a signed checkpoint. `broken`: where a row stopped verifying. `uncovered`: rows after the newest
 * checkpoint (never reported as verified). A filtered export is never `ok` as a whole: its rows'
 * hashes verify individually, and nothing in it proves they are in the log.
 */
export type ExportReport =
  | ExportUnreadable
  | {
      ok: boolean;
      kind: 'whole' | 'filtered';
      tenant: string;
      rows: number;
      through: ChainPoint;
      broken?: { seq: number; reason: BreakReason | 'export_end' };
      uncovered?: { from: number; to: number };
      /** The seq of each signed checkpoint the rows were held against. */
      checkpoints: number[];
      verified: string[];
      unverified: string[];
    };

const BATCH = 1_000;

export type ExportVerifyOptions = {
  /** Checkpoints saved separately (`--checkpoint`), already verified against the trusted keys. */
  checkpoints?: readonly CheckpointClaim[];
  /** The keys the auditor trusts (`--keys`); without them the end line's own keys check its checkpoint. */
  keys?: readonly PublicJwk[];
};

/**
 * Verifies a saved JSON Lines export (`GET /api/v1/audit/events?format=jsonl`) with nothing but the
 * file, signed checkpoints and public keys (docs/evidence.md): no database, no clock. Lines are read
 * one at a time (constant memory). A whole export must start at genesis and follow without a gap,
 * each line must re-hash, every checkpoint must lie on it (one past its end is a rolled-back tail),
 * and every row must be covered by one: rows after the newest checkpoint fail, named by their seq
 * range. A filtered export (its end line says so) is reported as what it is.
 */
export async function verifyExportLines(lines: AsyncIterable<string> | Iterable<string>, options: ExportVerifyOptions = {}): Promise<ExportReport> {
  const saved = options.checkpoints ?? [];
  const tenants = new Set(saved.map((point) => point.tenant));
  if (tenants.size > 1) return unreadable(0, `the checkpoints are of different tenants (${[...tenants].join(', ')})`);
  let tenant = [...tenants][0];
  let whole: ReturnType<typeof chainVerifier> | undefined;
  const each = rowsOneByOne(new Set(saved.map((point) => point.seq)));
  let end: { line: ExportEnd; number: number } | undefined;
  let batch: ChainRow[] = [];
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === '') continue;
    const parsed = parseLine(line);
    if (!parsed) return unreadable(number, 'is not an exported event (audit:verify --export reads the JSON Lines export, one event per line)');
    if (end) return unreadable(number, 'comes after the export’s end line');
    if ('format' in parsed) {
      end = { line: parsed, number };
      continue;
    }
    tenant ??= parsed.tenantId;
    // The saved checkpoints are checked as the rows go by; the end line's, once it is read.
    whole ??= chainVerifier(tenant, saved);
    each.push(parsed, tenant);
    batch.push(parsed);
    if (batch.length >= BATCH) {
      whole.push(batch);
      batch = [];
    }
  }
  if (!tenant) return unreadable(number, 'the export holds no events');
  whole?.push(batch);

  let signedEnd: CheckpointClaim | undefined;
  if (end) {
    try {
      signedEnd = await verifyCheckpoint(end.line.checkpoint, options.keys ?? end.line.keys);
    } catch (error) {
      return unreadable(end.number, `the export's end line: ${error instanceof CheckpointError ? error.message : 'its checkpoint does not verify'}`);
    }
    const stated = end.line;
    if (signedEnd.tenant !== stated.tenant || signedEnd.seq !== stated.seq || signedEnd.hash !== stated.hash || signedEnd.at !== stated.at || signedEnd.tenant !== tenant) {
      return unreadable(end.number, "the export's end line states another checkpoint than it carries (or another tenant's)");
    }
  }
  const checkpoints = [...saved, ...(signedEnd ? [signedEnd] : [])];
  const unverified = ['actorLabel (each line’s actor as the dashboard named it at export time: not hashed)'];
  if (end && options.keys) unverified.push('keys (the end line’s own: not used, the keys given with --keys were)');
  if (end?.line.filtered) return filteredReport(tenant, each, end.line, checkpoints, unverified);
  return wholeReport(tenant, whole!, each.rows(), { saved, end: end && signedEnd ? { claim: signedEnd, line: end.line } : undefined }, unverified);
}

function unreadable(line: number, message: string): ExportUnreadable {
  return { ok: false, unreadable: true, line, message };
}

/**
 * The whole chain from genesis: every saved checkpoint on it (checked as the rows went by), the end
 * line's checkpoint at its last row, and every row covered by one of them.
 */
function wholeReport(tenant: string, rowsVerifier: ReturnType<typeof chainVerifier>, rows: number, points: { saved: readonly CheckpointClaim[]; end?: { claim: CheckpointClaim; line: ExportEnd } }, unverified: string[]): ExportReport {
  const verdict = rowsVerifier.finish();
  const through = verdict.through;
  const end = points.end;
  const all = [...points.saved, ...(end ? [end.claim] : [])];
  const base = { kind: 'whole' as const, tenant, rows, through, checkpoints: all.map((point) => point.seq).sort((a, b) => a - b), unverified };
  if (!verdict.ok) return { ...base, ok: false, broken: { seq: verdict.seq, reason: verdict.reason }, verified: [] };
  // The end line describes this file: every event, this many rows, its checkpoint at the last.
  const describesFile = !end || (end.line.of === 'events' && Object.keys(end.line.filters).length === 0 && end.line.rows === rows && end.claim.seq === through.seq && end.claim.hash === through.hash);
  if (!describesFile) return { ...base, ok: false, broken: { seq: through.seq, reason: 'export_end' }, verified: [] };
  const uncovered = uncoveredRows(tenant, through, all);
  if (uncovered) return { ...base, ok: false, uncovered, verified: [] };
  return {
    ...base,
    ok: true,
    verified: [
      `${rows} event(s) of ${tenant}, #1 to #${through.seq}, re-hash as one unbroken chain from genesis`,
      `covered by signed checkpoint(s) at ${base.checkpoints.map((seq) => `#${seq}`).join(', ')}: no row was changed, dropped, added or moved`,
    ],
  };
}

/** A filtered export: each row on its own, and what its end line's checkpoint names. */
function filteredReport(tenant: string, each: ReturnType<typeof rowsOneByOne>, end: ExportEnd, checkpoints: readonly CheckpointClaim[], unverified: string[]): ExportReport {
  const summary = each.summary();
  const base = { kind: 'filtered' as const, ok: false, tenant, rows: summary.rows, through: summary.last ?? CHAIN_START, checkpoints: checkpoints.map((point) => point.seq).sort((a, b) => a - b) };
  if (summary.broken) return { ...base, broken: summary.broken, verified: [], unverified };
  const last = summary.last;
  if (!last || end.seq !== last.seq || end.hash !== last.hash || end.rows !== summary.rows) return { ...base, broken: { seq: last?.seq ?? 0, reason: 'export_end' }, verified: [], unverified };
  const hashOf = (seq: number) => (seq === last.seq ? last.hash : each.hashAt(seq));
  const named = checkpoints.filter((point) => hashOf(point.seq) !== undefined);
  const off = named.find((point) => hashOf(point.seq) !== point.hash);
  if (off) return { ...base, broken: { seq: off.seq, reason: 'checkpoint_mismatch' }, verified: [], unverified };
  const filters = Object.entries(end.filters).map(([name, value]) => `${name}=${value}`).join(', ') || 'none';
  const proposals = `${summary.proposals} proposal(s)${summary.withoutProposal > 0 ? ` and ${summary.withoutProposal} event(s) of no proposal` : ''}`;
  return {
    ...base,
    verified: [
      `${summary.rows} event(s) of ${proposals}, #${summary.first} to #${last.seq}, in sequence order; each re-hashes to its own hash`,
      ...named.map((point) => `event #${point.seq} is the one a checkpoint signed at ${point.at} names`),
    ],
    unverified: [
      `the inclusion of these events in ${tenant}'s log: this file carries no inclusion proofs, so a row could have been made up and hashed by whoever wrote the file`,
      `of, filters (that these are every event the filters select: the file's own word, view ${end.of}, filters ${filters})`,
      ...unverified,
    ],
  };
}

/**
 * Rows taken one at a time: each must re-hash, be of the tenant and come after the one before. Keeps
 * counts, the hashes at the `wanted` seqs (saved checkpoints'), and the first fault.
 */
function rowsOneByOne(wanted: ReadonlySet<number>) {
  let rows = 0;
  let first: number | undefined;
  let last: ChainPoint | undefined;
  let broken: { seq: number; reason: BreakReason } | undefined;
  const proposals = new Set<string>();
  let withoutProposal = 0;
  const hashes = new Map<number, string>();
  return {
    push(row: ChainRow, tenant: string) {
      rows += 1;
      if (broken) return;
      if (row.tenantId !== tenant) broken = { seq: row.seq, reason: 'tenant_mismatch' };
      else if (last && row.seq <= last.seq) broken = { seq: row.seq, reason: 'sequence' };
      else if (!rowHashMatches(row)) broken = { seq: row.seq, reason: 'hash_mismatch' };
      if (broken) return;
      first ??= row.seq;
      last = { seq: row.seq, hash: row.hash };
      if (wanted.has(row.seq)) hashes.set(row.seq, row.hash);
      if (row.proposalId) proposals.add(row.proposalId);
      else withoutProposal += 1;
    },
    rows: () => rows,
    hashAt: (seq: number) => hashes.get(seq),
    summary: () => ({ rows, first, last, broken, proposals: proposals.size, withoutProposal }),
  };
}

type Line = ChainRow | ExportEnd;

function parseLine(line: string): Line | undefined {
  try {
    const json = JSON.parse(line) as unknown;
    const isEnd = typeof json === 'object' && json !== null && 'format' in json;
    const parsed = (isEnd ? exportEndSchema : chainRowSchema).safeParse(json);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** A verdict's break in words (`export_end`: the end line's checkpoint or count is not the file's). */
export function describeExportBreak(reason: BreakReason | 'export_end'): string {
  return reason === 'export_end' ? "the export's end line does not match its rows (its checkpoint is for another row, or it counts another number of rows)" : describeBreak(reason);
}
