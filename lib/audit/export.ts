import 'server-only';
import type { Database } from '@/db';
import type { AuditEvent } from '@/db/schema';
import { chainPending } from '@/lib/events/chainer';
import type { CommandKeys } from '@/lib/signing/keys';
import { actorResolver } from './actors';
import { currentCheckpoint } from './checkpoint-store';
import { EXPORT_END_FORMAT, type ExportEnd } from './export-verify';
import { decisionEventsQuery, eventsQuery } from './history';
import type { ExportOf, HistoryFilters } from './history-filters';
import { inclusionProofFile } from './tlog/proof-api';
import { CHAIN_START, type ChainPoint } from './verify';

/**
 * The audit export (docs/design.md §8): every hashed field of each event (the actor's name beside its
 * id, as the event recorded it; empty on events written before names were recorded) plus
 * `prevHash` and `hash`, oldest first, so an auditor re-verifies it offline (`audit:verify --export`). Streamed one
 * keyset page at a time as the reader pulls: memory stays constant however many events match. The CSV
 * starts with a UTF-8 byte order mark (for spreadsheets); JSON Lines has none, holds the events up to
 * the tenant's checkpoint made when the download began, each row of a filtered export with its
 * inclusion proof in that checkpoint's tree, and ends with the checkpoint as a signed note
 * (`exportEnd`; docs/evidence.md).
 */
export const EXPORT_PAGE_SIZE = 1_000;

export const EXPORT_FIELDS = [
  'tenantId',
  'seq',
  'type',
  'actorType',
  'actorId',
  'actorName',
  'proposalId',
  'payloadHash',
  'reasonCode',
  'contractVersion',
  'data',
  'occurredAt',
  'prevHash',
  'hash',
  'actorLabel',
] as const;

export type ExportFormat = 'csv' | 'jsonl';

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

/**
 * One event as exported: the stored fields, the instant as ISO 8601 (what the hash covers), then
 * `actorLabel`, the actor in words as the dashboard shows it now ("Alice", "agent acme-support-bot",
 * "Countersign"). It is last and not hashed: the columns before it keep their places, and a verifier
 * reads only the hashed fields.
 */
export function exportRecord(row: AuditEvent, actorLabel: string): Record<(typeof EXPORT_FIELDS)[number], unknown> {
  return {
    tenantId: row.tenantId,
    seq: row.seq,
    type: row.type,
    actorType: row.actorType,
    actorId: row.actorId,
    actorName: row.actorName,
    proposalId: row.proposalId,
    payloadHash: row.payloadHash,
    reasonCode: row.reasonCode,
    contractVersion: row.contractVersion,
    data: row.data,
    occurredAt: new Date(row.occurredAt).toISOString(),
    prevHash: row.prevHash,
    hash: row.hash,
    actorLabel,
  };
}

/**
 * One CSV cell (RFC 4180): quoted when it holds a comma, quote, CR or LF, quotes doubled. A cell
 * starting with = + - @ (or tab, CR) gets a leading `'` so a spreadsheet never runs it as a
 * formula; strip that `'` before re-hashing such a value.
 */
export function csvCell(value: unknown): string {
  let text =
    value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvLine = (cells: readonly unknown[]) => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * A UTF-8 byte order mark before the CSV header: Excel then reads non-ASCII names as UTF-8, not the system code page.
 */
export const CSV_BOM = '\uFEFF';

/**
 * One page encoded, its actors named by one batched look-up inside the tenant (lib/audit/actors.ts);
 * `proveIn`: the tree size each JSON line's inclusion proof is made for (a filtered export's rows).
 */
async function encodePage(
  db: Database,
  tenantId: string,
  rows: AuditEvent[],
  format: ExportFormat,
  proveIn?: number,
): Promise<string> {
  const actorOf = await actorResolver(db, tenantId, rows);
  const records = rows.map((row) => exportRecord(row, actorOf(row).label));
  if (format === 'csv') return records.map((record) => csvLine(Object.values(record))).join('');
  const lines: string[] = [];
  for (const record of records) {
    const inclusion =
      proveIn === undefined ? undefined : await inclusionProofFile(db, tenantId, record.seq as number, proveIn);
    lines.push(`${JSON.stringify(inclusion ? { ...record, inclusion } : record)}\n`);
  }
  return lines.join('');
}

/** What an export selects: the history's filters, applied as the view it was asked from applies them. */
export type ExportSelection = { filters: HistoryFilters; of: ExportOf };

function exportPage(db: Database, tenantId: string, selection: ExportSelection, after: number, pageSize: number) {
  return selection.of === 'decisions'
    ? decisionEventsQuery(db, tenantId, selection.filters, after, pageSize)
    : eventsQuery(db, tenantId, selection.filters, { order: 'asc', after }, pageSize);
}

/** Whether a selection is the tenant's whole chain (what `audit:verify --export` verifies as a whole). */
export function isWholeChain(selection: ExportSelection): boolean {
  return selection.of === 'events' && Object.values(selection.filters).every((value) => value === undefined);
}

/** The tenant's checkpoint when a JSON Lines export began: the note its end line carries, and its tree size. */
type ExportHead = Awaited<ReturnType<typeof currentCheckpoint>>;

/**
 * The JSON Lines export's last line (lib/audit/export-verify.ts): the selection, the row count, the
 * last row, and the tenant's checkpoint signed note made when the export began, whose tree holds
 * every row. The filters are written as the URL carries them (dates as instants).
 */
function exportEnd(selection: ExportSelection, rows: number, last: ChainPoint, head: ExportHead): ExportEnd {
  const filters = Object.fromEntries(
    Object.entries(selection.filters).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, value instanceof Date ? value.toISOString() : String(value)]],
    ),
  );
  return {
    format: EXPORT_END_FORMAT,
    of: selection.of,
    filtered: !isWholeChain(selection),
    filters,
    rows,
    tenant: head.tenant,
    seq: last.seq,
    hash: last.hash,
    treeSize: head.seq,
    origin: head.origin,
    note: head.note,
    keys: head.keys,
  };
}

/**
 * The export as a byte stream: the next page is read only when the reader asks for more. JSON
 * Lines stops at the checkpoint made when it began and ends with it; CSV (for spreadsheets) has
 * none — verify the JSON Lines.
 */
export function auditExportStream(
  db: Database,
  tenantId: string,
  selection: ExportSelection,
  format: ExportFormat,
  keys: CommandKeys,
  pageSize = EXPORT_PAGE_SIZE,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after = 0;
  let started = false;
  let rows = 0;
  let last: ChainPoint = CHAIN_START;
  let head: ExportHead | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!started) {
          started = true;
          if (format === 'csv') {
            // Every event committed before the download began is in it.
            await chainPending(db, tenantId);
            controller.enqueue(encoder.encode(`${CSV_BOM}${csvLine(EXPORT_FIELDS)}`));
            return;
          }
          // Every event committed before the download began is chained, and in this checkpoint's tree.
          head = await currentCheckpoint(db, tenantId, keys);
        }
        const read = await exportPage(db, tenantId, selection, after, pageSize);
        // A JSON Lines export holds only what its checkpoint's tree holds.
        const page = head ? read.filter((row) => row.seq <= head!.seq) : read;
        if (page.length > 0) {
          after = page.at(-1)!.seq;
          rows += page.length;
          last = { seq: page.at(-1)!.seq, hash: page.at(-1)!.hash };
          controller.enqueue(
            encoder.encode(
              await encodePage(db, tenantId, page, format, head && !isWholeChain(selection) ? head.seq : undefined),
            ),
          );
        }
        if (page.length < pageSize) {
          if (head) controller.enqueue(encoder.encode(`${JSON.stringify(exportEnd(selection, rows, last, head))}\n`));
          controller.close();
        }
      },
    },
    { highWaterMark: 1 },
  );
}

/** The HTTP answer: the stream as a download named after the tenant and the day. */
export function auditExportResponse(
  db: Database,
  tenantId: string,
  selection: ExportSelection,
  format: ExportFormat,
  keys: CommandKeys,
  now = new Date(),
): Response {
  const day = now.toISOString().slice(0, 10);
  const name = `countersign-audit-${tenantId.replace(/[^A-Za-z0-9_-]/g, '_')}-${day}.${format}`;
  return new Response(auditExportStream(db, tenantId, selection, format, keys), {
    headers: {
      'content-type': EXPORT_CONTENT_TYPES[format],
      'content-disposition': `attachment; filename="${name}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  });
}
