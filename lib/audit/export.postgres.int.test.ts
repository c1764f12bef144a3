import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CommandKeys, commandKeys } from '@/lib/signing/keys';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { insertBulkAuditEvents } from '@/test/fixtures/audit';
import { auditExportResponse, EXPORT_PAGE_SIZE } from './export';
import { extendTree } from './tlog/store';

/**
 * The export streams: it holds one page of events at a time, whatever the number of events. Shown
 * by counts rather than by memory readings: each chunk the reader receives is at most one page
 * (EXPORT_PAGE_SIZE lines), the whole export is one keyset statement and one look-up of the actors' names per page
 * (after one that finds no event awaiting its chaining), and a reader that stops early has caused at most one page to
 * be read beyond what it took.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'export.postgres.int.test.ts');

const EVENTS = 20 * EXPORT_PAGE_SIZE + 1;

let keys: CommandKeys;

beforeAll(async () => {
  keys = await commandKeys();
  await insertBulkAuditEvents(t.owner, 'bulk', EVENTS);
  // The bulk rows are the chain: its head, and the tree over it (built once, as the first checkpoint would).
  await t.owner.execute(
    sql`insert into audit_heads (tenant_id, seq, hash) select tenant_id, seq, hash from audit_events where tenant_id = 'bulk' and seq = ${EVENTS}`,
  );
  expect(await extendTree(t.db, 'bulk')).toBe(EVENTS);
}, 300_000);

const linesOf = (chunk: Uint8Array) => chunk.reduce((lines, byte) => lines + (byte === 0x0a ? 1 : 0), 0);

describe('the audit export streams one page at a time', () => {
  it.each(['jsonl', 'csv'] as const)('%s: every chunk is at most one page, one statement each', async (format) => {
    const header = format === 'csv' ? 1 : 0;
    const chunks: number[] = [];
    const statements = await counting.statementsOf(async () => {
      const reader = auditExportResponse(
        counting.db,
        'bulk',
        { filters: {}, of: 'events' },
        format,
        keys,
      ).body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(linesOf(read.value));
    });
    if (header) expect(chunks.shift()).toBe(1);
    // JSON Lines ends with its signed end line, a chunk of its own.
    if (format === 'jsonl') expect(chunks.pop()).toBe(1);
    expect(chunks.reduce((sum, lines) => sum + lines, 0)).toBe(EVENTS);
    expect(Math.max(...chunks)).toBe(EXPORT_PAGE_SIZE);
    // 21 pages: 20 full ones and the last event alone (its short page ends the export).
    expect(chunks).toHaveLength(Math.ceil(EVENTS / EXPORT_PAGE_SIZE));
    // A look-up of names on every page that has a person or an agent in it: all but the last, whose one event is a
    // system's; JSON Lines also reads the head and its tree's root (one statement each) for the checkpoint it ends
    // with.
    expect(statements).toBe(1 + (format === 'jsonl' ? 2 : 0) + chunks.length + (chunks.length - 1));
  });

  it('reads no more than one page ahead of a reader that stops', async () => {
    const statements = await counting.statementsOf(async () => {
      const reader = auditExportResponse(
        counting.db,
        'bulk',
        { filters: {}, of: 'events' },
        'jsonl',
        keys,
      ).body!.getReader();
      for (let read = 0; read < 3; read++) expect(linesOf((await reader.read()).value!)).toBe(EXPORT_PAGE_SIZE);
      await reader.cancel();
    });
    expect(statements).toBeLessThanOrEqual(1 + 2 + 2 * 4);
  });
});
