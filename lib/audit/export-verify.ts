import { chainRowSchema, chainVerifier, type ChainReport, type ChainRow, type CheckpointClaim } from './verify';

/** Why an export file cannot even be read as a chain: the line and what is wrong with it. */
export type ExportUnreadable = { ok: false; unreadable: true; line: number; message: string };

export type ExportReport = (ChainReport & { rows: number }) | ExportUnreadable;

const BATCH = 1_000;

/**
 * Verifies a saved audit export (`GET /api/v1/audit/events?format=jsonl`, unfiltered) with nothing
 * but the file and signed checkpoints (docs/design.md §8): no database. Lines are read one at a time
 * (constant memory); the chain must start at genesis and follow without a gap, each line must
 * re-hash, and every checkpoint must lie on it — one past its end is a rolled-back tail. The
 * tenant is the checkpoints' (they must agree), else the first line's.
 */
export async function verifyExportLines(lines: AsyncIterable<string> | Iterable<string>, checkpoints: readonly CheckpointClaim[]): Promise<ExportReport> {
  const tenants = new Set(checkpoints.map((point) => point.tenant));
  if (tenants.size > 1) return { ok: false, unreadable: true, line: 0, message: `the checkpoints are of different tenants (${[...tenants].join(', ')})` };
  let verifier: ReturnType<typeof chainVerifier> | undefined;
  let tenant = [...tenants][0];
  let batch: ChainRow[] = [];
  let number = 0;
  let rows = 0;
  for await (const line of lines) {
    number += 1;
    if (line.trim() === '') continue;
    const row = parseLine(line);
    if (!row) return { ok: false, unreadable: true, line: number, message: 'is not an exported event (audit:verify --export reads the JSON Lines export, one event per line)' };
    tenant ??= row.tenantId;
    verifier ??= chainVerifier(tenant, checkpoints);
    batch.push(row);
    rows += 1;
    if (batch.length >= BATCH) {
      verifier.push(batch);
      batch = [];
    }
  }
  if (!verifier || !tenant) return { ok: false, unreadable: true, line: number, message: 'the export holds no events' };
  verifier.push(batch);
  return { ...verifier.finish(), rows };
}

function parseLine(line: string): ChainRow | undefined {
  try {
    const parsed = chainRowSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
