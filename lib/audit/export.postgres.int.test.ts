import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { insertBulkAuditEvents } from '@/test/fixtures/audit';
import { auditExportResponse } from './export';

/**
 * The export streams: exporting 200,000 events takes no more memory than exporting 20,000 (the
 * database is another process here, so the test's own memory is the export's).
 */
const t = setupTestDatabase();
if (t.driver !== 'postgres') throw new Error('export.postgres.int.test.ts needs PostgreSQL: run it with --project integration-postgres.');

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

beforeAll(async () => {
  await insertBulkAuditEvents(t.db, 'small', 20_000);
  await insertBulkAuditEvents(t.db, 'big', 200_000);
}, 300_000);

const MiB = 1024 * 1024;

/**
 * Reads the whole export as a client would, chunk by chunk; returns its size and the peak growth
 * of the live heap (measured after a collection every 10 chunks, so garbage not yet collected does
 * not count) and of RSS.
 */
async function exportAndMeasure(tenantId: string, format: 'csv' | 'jsonl') {
  gc();
  const base = process.memoryUsage();
  let peakHeap = 0;
  let peakRss = 0;
  let bytes = 0;
  let lines = 0;
  let chunks = 0;
  const response = auditExportResponse(t.db, tenantId, { filters: {}, of: 'events' }, format);
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    for (const byte of value) if (byte === 0x0a) lines += 1;
    chunks += 1;
    if (chunks % 10 !== 0) continue;
    gc();
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed - base.heapUsed);
    peakRss = Math.max(peakRss, now.rss - base.rss);
  }
  return { bytes, lines, heapMiB: peakHeap / MiB, rssMiB: peakRss / MiB };
}

describe('the audit export streams with constant memory', () => {
  it.each(['jsonl', 'csv'] as const)('%s: 200,000 events grow memory no more than 20,000 do (within a fixed bound)', async (format) => {
    await exportAndMeasure('small', format); // warm up: code paths, connection, JIT
    const small = await exportAndMeasure('small', format);
    const big = await exportAndMeasure('big', format);
    console.log(`${format}: 20k → ${(small.bytes / MiB).toFixed(1)} MiB sent, heap +${small.heapMiB.toFixed(1)} MiB, rss +${small.rssMiB.toFixed(1)} MiB; 200k → ${(big.bytes / MiB).toFixed(1)} MiB sent, heap +${big.heapMiB.toFixed(1)} MiB, rss +${big.rssMiB.toFixed(1)} MiB`);
    expect(small.lines).toBe(20_000 + (format === 'csv' ? 1 : 0));
    expect(big.lines).toBe(200_000 + (format === 'csv' ? 1 : 0));
    // Ten times the data, several times more bytes than the bound: memory does not follow the count.
    expect(big.bytes).toBeGreaterThan(32 * MiB);
    expect(big.heapMiB).toBeLessThan(16);
    expect(big.rssMiB).toBeLessThan(48);
    expect(big.heapMiB).toBeLessThan(small.heapMiB + 8);
    expect(big.rssMiB).toBeLessThan(small.rssMiB + 32);
  });
});
