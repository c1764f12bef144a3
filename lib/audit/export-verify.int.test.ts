import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decide } from '@/lib/decisions/decide';
import { commandKeys } from '@/lib/commands/keys';
import { runCli } from '@/test/cli';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { currentCheckpoint } from './checkpoint-store';
import { auditExportStream } from './export';
import { verifyExportLines } from './export-verify';
import type { CheckpointClaim } from './verify';

/** `audit:verify --export`: an auditor's files alone (the JSON Lines export, a saved checkpoint, the JWKS), never a database. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let lines: string[];
let saved: Awaited<ReturnType<typeof currentCheckpoint>>;
let claim: CheckpointClaim;
let dir: string;

beforeAll(async () => {
  for (let i = 0; i < 4; i++) {
    const { proposal } = await submitAs(t.db, systems.client, seeded.acme, { requestId: `req_export_${i}`, action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 1 } });
    if (i % 2 === 0) await decide(t.db, systems.client, { userId: seeded.world.userId('alice'), proposalId: proposal.id, request: { decision: 'approve', payloadHash: proposal.payloadHash } });
  }
  lines = (await new Response(auditExportStream(t.db, 'acme', { filters: {}, of: 'events' }, 'jsonl')).text()).trimEnd().split('\n');
  saved = await currentCheckpoint(t.db, 'acme', await commandKeys());
  claim = { tenant: saved.tenant, seq: saved.seq, hash: saved.hash, at: saved.at };
  expect(lines.length).toBe(saved.seq);
  expect(lines.length).toBeGreaterThanOrEqual(10);
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cs-export-verify-'));
  await fs.writeFile(path.join(dir, 'checkpoint.json'), JSON.stringify(saved));
  await fs.writeFile(path.join(dir, 'jwks.json'), JSON.stringify({ keys: saved.keys }));
});

const editLine = (index: number, change: (row: Record<string, unknown>) => Record<string, unknown>) => (rows: string[]) => rows.map((line, i) => (i === index ? JSON.stringify(change(JSON.parse(line) as Record<string, unknown>)) : line));

describe('verifying an export from files alone', () => {
  it('a whole export verifies against its checkpoint', async () => {
    expect(await verifyExportLines(lines, [claim])).toEqual({ ok: true, tenant: 'acme', through: { seq: saved.seq, hash: saved.hash }, checkpoints: 1, rows: lines.length });
  });

  it.each<[string, (rows: string[]) => string[], { seq: number | 'end'; reason: string }]>([
    ['a line edited (the approver renamed)', editLine(4, (row) => ({ ...row, actorName: 'Mallory' })), { seq: 5, reason: 'hash_mismatch' }],
    ['a line edited (the event type)', editLine(2, (row) => ({ ...row, type: 'proposal.rejected' })), { seq: 3, reason: 'hash_mismatch' }],
    ['a line dropped', (rows) => rows.filter((_, i) => i !== 3), { seq: 4, reason: 'sequence' }],
    ['two lines reordered', (rows) => [...rows.slice(0, 3), rows[4]!, rows[3]!, ...rows.slice(5)], { seq: 4, reason: 'sequence' }],
    ['the tail rolled back before the checkpoint', (rows) => rows.slice(0, -2), { seq: 'end', reason: 'truncated' }],
  ])('fails on %s', async (_name, tamper, expected) => {
    const report = await verifyExportLines(tamper([...lines]), [claim]);
    expect(report).toMatchObject({ ok: false, reason: expected.reason, seq: expected.seq === 'end' ? lines.length - 1 : expected.seq });
  });

  it.each<[string, string[], CheckpointClaim[], string]>([
    ['a line that is not an event', ['{"not":"an event"}'], [], 'is not an exported event'],
    ['an empty file', [''], [], 'the export holds no events'],
  ])('refuses %s', async (_name, rows, checkpoints, message) => {
    expect(await verifyExportLines(rows, checkpoints)).toMatchObject({ ok: false, unreadable: true, message: expect.stringContaining(message) });
  });

  it("fails when the checkpoint is another tenant's", async () => {
    expect(await verifyExportLines(lines, [{ ...claim, tenant: 'globex' }])).toMatchObject({ ok: false, reason: 'tenant_mismatch' });
  });
});

describe('npm run cli -- audit:verify --export events.jsonl --checkpoint checkpoint.json --keys jwks.json', () => {
  const run = async (rows: string[]) => {
    const file = path.join(dir, `events-${rows.length}-${Math.random().toString(36).slice(2)}.jsonl`);
    await fs.writeFile(file, `${rows.join('\n')}\n`);
    const dataDir = path.join(dir, 'no-database-here');
    const result = await runCli(['audit:verify', '--export', file, '--checkpoint', path.join(dir, 'checkpoint.json'), '--keys', path.join(dir, 'jwks.json')], dataDir);
    // Nothing opened (or created) a database.
    await expect(fs.stat(dataDir)).rejects.toThrow();
    return result;
  };

  it('passes a good export, opening no database', async () => {
    const result = await run(lines);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(`acme: ${lines.length} event(s) verified, #1 to #${saved.seq} (${saved.hash}), matching 1 signed checkpoint(s) at #${saved.seq}\nThe export verifies.\n`);
    expect(result.code).toBe(0);
  });

  it.each<[string, (rows: string[]) => string[], () => string]>([
    ['an edited line', editLine(4, (row) => ({ ...row, actorName: 'Mallory' })), () => 'acme #5 (hash_mismatch)'],
    ['a dropped line', (rows) => rows.filter((_, i) => i !== 3), () => 'acme #4 (sequence)'],
    ['a reordered line', (rows) => [...rows.slice(0, 3), rows[4]!, rows[3]!, ...rows.slice(5)], () => 'acme #4 (sequence)'],
    ['a rolled-back tail', (rows) => rows.slice(0, -2), () => `acme #${lines.length - 1} (truncated)`],
  ])('exits 1 on %s, saying where', async (_name, tamper, says) => {
    const result = await run(tamper([...lines]));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('acme: BROKEN at #');
    expect(result.stderr).toBe(`Error: the export does not verify: ${says()}\n`);
  });
});
