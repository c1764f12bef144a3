import { z } from 'zod';
import type { PublicJwk } from '@/lib/signing/keys';
import { jwksFileSchema } from './checkpoint';
import { eventLeafHash } from './tlog/leaf';
import { appendLeaf, type Hash, lookUp, nodeKey, rootOf, type SubtreeHash, sameHash } from './tlog/merkle';
import { NoteError, type TreeHead, type VerifiedCheckpoint, verifyCheckpoint } from './tlog/note';
import { originTenant } from './tlog/origin';
import {
  type ConsistencyProofFile,
  inclusionProofSchema,
  ProofError,
  verifyCheckpointConsistency,
  verifyEventInclusion,
} from './tlog/proofs';
import {
  type BreakReason,
  CHAIN_START,
  type ChainPoint,
  type ChainRow,
  type CheckpointClaim,
  chainRowSchema,
  chainVerifier,
  describeBreak,
  rowHashMatches,
} from './verify';

/**
 * The last line of every JSON Lines export (lib/audit/export.ts): what the export selected, how many
 * rows it wrote and its last row, and the tenant's checkpoint made when the export began, as a C2SP
 * tlog-checkpoint signed note (`note`, tree size `treeSize`; docs/evidence.md "The log format") with
 * the keys that verify it. Only the note is signed; `of`, `filters`, `filtered`, `rows`, `seq` and
 * `hash` are the file's own word, held against its rows.
 */
export const EXPORT_END_FORMAT = 'countersign.export-end/2';

export const exportEndSchema = z.object({
  format: z.literal(EXPORT_END_FORMAT),
  of: z.enum(['events', 'decisions']),
  filtered: z.boolean(),
  filters: z.record(z.string(), z.string()),
  rows: z.int().min(0),
  tenant: z.string(),
  seq: z.int().min(0),
  hash: z.string(),
  treeSize: z.int().min(0),
  origin: z.string(),
  note: z.string(),
  keys: jwksFileSchema.shape.keys,
});

export type ExportEnd = z.infer<typeof exportEndSchema>;

/** A row of a filtered export: its hashed fields, its hash, and its inclusion proof in the end line's checkpoint. */
const exportRowSchema = chainRowSchema.extend({ inclusion: inclusionProofSchema.optional() });
type ExportRow = z.infer<typeof exportRowSchema>;

/** Why an export file cannot even be read as a chain: the line and what is wrong with it. */
export type ExportUnreadable = { ok: false; unreadable: true; line: number; message: string };

/** Why an export fails beyond its rows: its end line, an inclusion proof, or its checkpoint against an earlier one. */
export type ExportBreak = BreakReason | 'export_end' | 'inclusion' | 'inconsistent';

/**
 * What an export establishes. `ok` for a whole export only when every row is on the chain from
 * genesis and covered by a signed checkpoint (the end line's tree root recomputed from the rows);
 * for a filtered one only when every row proves its inclusion in the end line's checkpoint — what it
 * then says is exactly that, never that the log verifies. `broken`: where it stopped verifying.
 * `uncovered`: rows after the newest checkpoint (never reported as verified).
 */
export type ExportReport =
  | ExportUnreadable
  | {
      ok: boolean;
      kind: 'whole' | 'filtered';
      tenant: string;
      rows: number;
      through: ChainPoint;
      broken?: { seq: number; reason: ExportBreak; detail?: string };
      uncovered?: { from: number; to: number };
      /** The seq (tree size) of each signed checkpoint the rows were held against. */
      checkpoints: number[];
      verified: string[];
      unverified: string[];
    };

const BATCH = 1_000;

export type ExportVerifyOptions = {
  /**
   * Checkpoints saved separately as JWS (`--checkpoint` files of any age), already verified against the trusted keys.
   */
  checkpoints?: readonly CheckpointClaim[];
  /**
   * Earlier checkpoints as verified signed notes (`--checkpoint` files with `note`): the export's must be consistent
   * with each.
   */
  earlier?: readonly TreeHead[];
  /**
   * `--consistency`: the proof from an earlier checkpoint to the export's (`GET /api/v1/audit/proofs/consistency`), for
   * a filtered export.
   */
  consistency?: ConsistencyProofFile;
  /** The keys the auditor trusts (`--keys`); without them the end line's own keys check its checkpoint. */
  keys?: readonly PublicJwk[];
};

/**
 * Verifies a saved JSON Lines export (`GET /api/v1/audit/events?format=jsonl`) with nothing but the
 * file, signed checkpoints, proofs and public keys (docs/evidence.md): no database, no clock. Lines
 * are read one at a time (constant memory: the tree is kept as its O(log n) complete subtrees). A
 * whole export must start at genesis and follow without a gap, each line must re-hash, the tree of
 * its rows must have the root its end line's signed note gives, and every earlier checkpoint must be
 * a prefix of it (a root that differs is a fork; one past its end a rolled-back tail). A filtered
 * export (its end line says so) proves each row's inclusion in the end line's checkpoint, and its
 * consistency with an earlier one through `consistency`.
 */
export async function verifyExportLines(
  lines: AsyncIterable<string> | Iterable<string>,
  options: ExportVerifyOptions = {},
): Promise<ExportReport> {
  const saved = options.checkpoints ?? [];
  const tenants = new Set(saved.map((point) => point.tenant));
  if (tenants.size > 1) return unreadable(0, `the checkpoints are of different tenants (${[...tenants].join(', ')})`);
  let tenant = [...tenants][0];
  let whole: ReturnType<typeof chainVerifier> | undefined;
  const tree = treeOfRows(options.earlier ?? []);
  const each = rowsOneByOne(new Set(saved.map((point) => point.seq)));
  const proven: ExportRow[] = [];
  let end: { line: ExportEnd; number: number } | undefined;
  let batch: ChainRow[] = [];
  let number = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === '') continue;
    const parsed = parseLine(line);
    if (!parsed)
      return unreadable(
        number,
        'is not an exported event (audit:verify --export reads the JSON Lines export, one event per line)',
      );
    if (end) return unreadable(number, 'comes after the export’s end line');
    if ('format' in parsed) {
      end = { line: parsed, number };
      continue;
    }
    tenant ??= parsed.tenantId;
    // The saved checkpoints are checked as the rows go by; the end line's, once it is read.
    whole ??= chainVerifier(tenant, saved);
    each.push(parsed, tenant);
    tree.push(parsed);
    // A filtered export's proofs wait for its end line's checkpoint (the rows of one are few: a proposal's, a
    // person's).
    if (parsed.inclusion) proven.push(parsed);
    batch.push(parsed);
    if (batch.length >= BATCH) {
      whole.push(batch);
      batch = [];
    }
  }
  if (!tenant) return unreadable(number, 'the export holds no events');
  whole?.push(batch);

  let head: VerifiedCheckpoint | undefined;
  if (end) {
    try {
      head = verifyCheckpoint(end.line.note, options.keys ?? end.line.keys, end.line.origin);
    } catch (error) {
      return unreadable(
        end.number,
        `the export's end line: ${error instanceof NoteError ? error.message : 'its checkpoint does not verify'}`,
      );
    }
    if (end.line.tenant !== tenant || end.line.treeSize !== head.size || originTenant(head.origin) !== tenant) {
      return unreadable(
        end.number,
        "the export's end line states another checkpoint than it carries (or another tenant's log)",
      );
    }
    const foreign = options.earlier?.find((earlier) => earlier.origin !== head!.origin);
    if (foreign)
      return unreadable(0, `the earlier checkpoint is of log ${foreign.origin}, the export of ${head.origin}`);
  }
  const unverified = ['actorLabel (each line’s actor as the dashboard named it at export time: not hashed)'];
  if (end && options.keys) unverified.push('keys (the end line’s own: not used, the keys given with --keys were)');
  if (end?.line.filtered)
    return filteredReport(tenant, each, proven, { line: end.line, head: head! }, options, unverified);
  return wholeReport(
    tenant,
    whole!,
    tree,
    each.rows(),
    { saved, end: end && head ? { head, line: end.line } : undefined },
    unverified,
  );
}

/** An earlier checkpoint the export's extends, in words. */
function consistentWords(earlier: TreeHead, later: TreeHead | undefined): string {
  return (
    `the earlier checkpoint #${earlier.size} is a prefix ` +
    `of ${later ? `checkpoint #${later.size}` : 'these rows'}: the log was neither rolled back nor forked since`
  );
}

function unreadable(line: number, message: string): ExportUnreadable {
  return { ok: false, unreadable: true, line, message };
}

/**
 * The RFC 6962 tree of a whole export's rows, built as they go by from their hashes, as its complete
 * subtrees only; at each earlier checkpoint's size its root is compared with that checkpoint's.
 */
function treeOfRows(earlier: readonly TreeHead[]) {
  const peaks: SubtreeHash[] = [];
  let size = 0;
  let fork: TreeHead | undefined;
  const rootNow = (): Hash => rootOf(size, lookUp(new Map(peaks.map(({ id, hash }) => [nodeKey(id), hash]))));
  return {
    push(row: ChainRow) {
      // Out of order or unreadable: the chain verifier names the fault; the tree stops growing.
      if (row.seq !== size + 1 || !/^sha256:[0-9a-f]{64}$/.test(row.hash)) return;
      appendLeaf(peaks, size, eventLeafHash(row.hash));
      size += 1;
      const at = earlier.find((head) => head.size === size);
      if (at && !fork && !sameHash(rootNow(), at.rootHash)) fork = at;
    },
    size: () => size,
    root: rootNow,
    /** The first earlier checkpoint whose root is not this tree's at its size: a fork. */
    fork: () => fork,
    /** The largest earlier checkpoint beyond the rows: the log was rolled back past it. */
    beyond: () => earlier.filter((head) => head.size > size).sort((a, b) => b.size - a.size)[0],
    /** The earlier checkpoints the rows reach: each a prefix of this tree (when there is no fork). */
    within: () => earlier.filter((head) => head.size <= size),
  };
}

/**
 * The whole chain from genesis: every saved checkpoint on it (checked as the rows went by), the end
 * line's note signing the root of exactly these rows, every earlier note a prefix of them, and every
 * row covered by a checkpoint.
 */
function wholeReport(
  tenant: string,
  rowsVerifier: ReturnType<typeof chainVerifier>,
  tree: ReturnType<typeof treeOfRows>,
  rows: number,
  points: { saved: readonly CheckpointClaim[]; end?: { head: VerifiedCheckpoint; line: ExportEnd } },
  unverified: string[],
): ExportReport {
  const verdict = rowsVerifier.finish();
  const through = verdict.through;
  const end = points.end;
  const covering = [
    ...points.saved.map((point) => point.seq),
    ...tree.within().map((head) => head.size),
    ...(end ? [end.head.size] : []),
  ];
  const base = {
    kind: 'whole' as const,
    tenant,
    rows,
    through,
    checkpoints: covering.sort((a, b) => a - b),
    unverified,
  };
  if (!verdict.ok) return { ...base, ok: false, broken: { seq: verdict.seq, reason: verdict.reason }, verified: [] };
  // The end line describes this file: every event, this many rows, and its note signs their tree.
  const describesFile =
    !end ||
    (end.line.of === 'events' &&
      Object.keys(end.line.filters).length === 0 &&
      end.line.rows === rows &&
      end.line.seq === through.seq &&
      end.line.hash === through.hash &&
      end.head.size === through.seq &&
      sameHash(tree.root(), end.head.rootHash));
  if (!describesFile) return { ...base, ok: false, broken: { seq: through.seq, reason: 'export_end' }, verified: [] };
  const fork = tree.fork();
  if (fork)
    return {
      ...base,
      ok: false,
      broken: {
        seq: fork.size,
        reason: 'checkpoint_mismatch',
        detail: `the first ${fork.size} row(s) do not make the tree an earlier checkpoint signed`,
      },
      verified: [],
    };
  const beyond = tree.beyond();
  if (beyond)
    return {
      ...base,
      ok: false,
      broken: {
        seq: through.seq + 1,
        reason: 'truncated',
        detail: `an earlier checkpoint signs ${beyond.size} event(s); this export ends at #${through.seq}`,
      },
      verified: [],
    };
  // A checkpoint fixes every row up to its size: the saved ones, the earlier notes the rows reach, the end line's.
  const newest = Math.max(CHAIN_START.seq, ...covering);
  if (newest < through.seq)
    return { ...base, ok: false, uncovered: { from: newest + 1, to: through.seq }, verified: [] };
  return {
    ...base,
    ok: true,
    verified: [
      `${rows} event(s) of ${tenant}, #1 to #${through.seq}, re-hash as one unbroken chain from genesis`,
      end
        ? `their tree's root is the one checkpoint #${end.head.size} (tree size ${end.head.size}) ` +
          `of ${end.head.origin} signs: no row was changed, dropped, added or moved`
        : `covered by signed checkpoint(s) at ${base.checkpoints.map((seq) => `#${seq}`).join(', ')}: no row ` +
          `was changed, dropped, added or moved`,
      ...tree.within().map((head) => consistentWords(head, end?.head)),
    ],
  };
}
/**
 * A filtered export: each row re-hashes, in sequence order, and proves its inclusion in the end
 * line's checkpoint; an earlier checkpoint is held to it by the consistency proof. Verified, it says
 * exactly that — these events, each in checkpoint #N — never that the whole log verifies.
 */
function filteredReport(
  tenant: string,
  each: ReturnType<typeof rowsOneByOne>,
  proven: readonly ExportRow[],
  end: { line: ExportEnd; head: VerifiedCheckpoint },
  options: ExportVerifyOptions,
  unverified: string[],
): ExportReport {
  const summary = each.summary();
  const base = {
    kind: 'filtered' as const,
    ok: false,
    tenant,
    rows: summary.rows,
    through: summary.last ?? CHAIN_START,
    checkpoints: [end.head.size],
  };
  if (summary.broken) return { ...base, broken: summary.broken, verified: [], unverified };
  const last = summary.last;
  if (!last || end.line.seq !== last.seq || end.line.hash !== last.hash || end.line.rows !== summary.rows)
    return { ...base, broken: { seq: last?.seq ?? 0, reason: 'export_end' }, verified: [], unverified };
  if (proven.length !== summary.rows)
    return {
      ...base,
      broken: {
        seq: last.seq,
        reason: 'inclusion',
        detail: `${summary.rows - proven.length} row(s) carry no inclusion proof`,
      },
      verified: [],
      unverified,
    };
  for (const row of proven) {
    try {
      verifyEventInclusion(row, row.inclusion!, end.head);
    } catch (error) {
      return {
        ...base,
        broken: {
          seq: row.seq,
          reason: 'inclusion',
          detail: error instanceof ProofError ? error.message : 'its inclusion proof does not verify',
        },
        verified: [],
        unverified,
      };
    }
  }
  const consistent: string[] = [];
  for (const earlier of options.earlier ?? []) {
    try {
      if (earlier.size === end.head.size && !sameHash(earlier.rootHash, end.head.rootHash))
        throw new ProofError(
          `checkpoint #${end.head.size} differs from the earlier checkpoint of the same size: the log was forked`,
        );
      if (earlier.size > 0 && earlier.size < end.head.size && !options.consistency)
        throw new ProofError(
          `no consistency proof from #${earlier.size} to #${end.head.size} was given (--consistency, from ` +
            `GET /api/v1/audit/proofs/consistency?from=${earlier.size}&to=${end.head.size})`,
        );
      verifyCheckpointConsistency(
        earlier,
        end.head,
        options.consistency ?? { fromSize: earlier.size, toSize: end.head.size, hashes: [] },
      );
    } catch (error) {
      return {
        ...base,
        broken: {
          seq: end.head.size,
          reason: 'inconsistent',
          detail: error instanceof ProofError ? error.message : 'the consistency proof does not verify',
        },
        verified: [],
        unverified,
      };
    }
    consistent.push(consistentWords(earlier, end.head));
  }
  const filters =
    Object.entries(end.line.filters)
      .map(([name, value]) => `${name}=${value}`)
      .join(', ') || 'none';
  const proposals =
    `${summary.proposals} proposal(s)` +
    `${summary.withoutProposal > 0 ? ` and ${summary.withoutProposal} event(s) of no proposal` : ''}`;
  return {
    ...base,
    ok: true,
    verified: [
      `${summary.rows} event(s) of ${proposals}, #${summary.first} to #${last.seq}, in sequence order, each ` +
        `re-hashing and included in checkpoint #${end.head.size} (tree size ${end.head.size}) ` +
        `of ${end.head.origin}`,
      ...consistent,
    ],
    unverified: [
      `of, filters (that these are every event the filters select, and that the log has no other event ` +
        `of ${summary.proposals === 1 ? 'this proposal' : 'these proposals'}: the file's own word, ` +
        `view ${end.line.of}, filters ${filters}; a filtered export proves what it holds, not what it leaves ` +
        `out)`,
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

type Line = ExportRow | ExportEnd;

function parseLine(line: string): Line | undefined {
  try {
    const json = JSON.parse(line) as unknown;
    const isEnd = typeof json === 'object' && json !== null && 'format' in json;
    const parsed = (isEnd ? exportEndSchema : exportRowSchema).safeParse(json);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const EXPORT_BREAKS: Record<Exclude<ExportBreak, BreakReason>, string> = {
  export_end:
    "the export's end line does not match its rows (its checkpoint's tree is not theirs, or it names another " +
    'last row or count)',
  inclusion: "a row's inclusion proof does not lead to the end line's checkpoint",
  inconsistent: "the export's checkpoint does not extend the earlier one (a rolled-back or forked log)",
};

/** A verdict's break in words. */
export function describeExportBreak(reason: ExportBreak): string {
  return reason in EXPORT_BREAKS
    ? EXPORT_BREAKS[reason as keyof typeof EXPORT_BREAKS]
    : describeBreak(reason as BreakReason);
}
