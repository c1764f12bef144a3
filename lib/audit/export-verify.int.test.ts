import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decide } from '@/lib/decisions/decide';
import { type CommandKeys, commandKeys } from '@/lib/signing/keys';
import { A_YEAR_MS, runCli } from '@/test/cli';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { currentCheckpoint } from './checkpoint-store';
import { auditExportStream } from './export';
import { type ExportEnd, verifyExportLines } from './export-verify';
import { eventLeafHash } from './tlog/leaf';
import { lookUp, rootOf, subtreesOf } from './tlog/merkle';
import { signCheckpointNote, type TreeHead, verifyCheckpoint } from './tlog/note';
import { consistencyProofFile } from './tlog/proof-api';
import { type ChainRow, type CheckpointClaim, rowHash } from './verify';

/**
 * `audit:verify --export`: an auditor's files alone (the JSON Lines export, saved checkpoints, the JWKS), never a
 * database.
 */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let keys: CommandKeys;
/** The whole export as the server writes it: every event, then its signed end line. */
let lines: string[];
let events: string[];
let endLine: string;
/**
 * A checkpoint saved earlier (`GET /api/v1/audit/checkpoint`), halfway: its JWS claim, its note's tree head, the file.
 */
let earlier: { claim: CheckpointClaim; head: TreeHead; file: string };
let proposalId: string;
let dir: string;

const exported = async (selection: Parameters<typeof auditExportStream>[2]) =>
  (await new Response(auditExportStream(t.db, 'acme', selection, 'jsonl', keys)).text()).trimEnd().split('\n');

beforeAll(async () => {
  keys = await commandKeys();
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cs-export-verify-'));
  for (let i = 0; i < 4; i++) {
    const { proposal } = await submitAs(t.db, systems.client, seeded.acme, {
      requestId: `req_export_${i}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    });
    if (i % 2 === 0)
      await decide(t.db, systems.client, {
        userId: seeded.world.userId('alice'),
        proposalId: proposal.id,
        request: { decision: 'approve', payloadHash: proposal.payloadHash },
      });
    if (i === 0) proposalId = proposal.id;
    if (i === 1) {
      const saved = await currentCheckpoint(t.db, 'acme', keys);
      earlier = {
        claim: { tenant: saved.tenant, seq: saved.seq, hash: saved.hash, at: saved.at },
        head: verifyCheckpoint(saved.note, keys.jwks),
        file: path.join(dir, 'checkpoint.json'),
      };
      await fs.writeFile(earlier.file, JSON.stringify(saved));
    }
  }
  lines = await exported({ filters: {}, of: 'events' });
  events = lines.slice(0, -1);
  endLine = lines.at(-1)!;
  expect(events.length).toBeGreaterThanOrEqual(10);
  expect(earlier.head.size).toBeLessThan(events.length - 2);
  await fs.writeFile(path.join(dir, 'jwks.json'), JSON.stringify({ keys: keys.jwks }));
});

afterEach(() => {
  vi.useRealTimers();
});

const rehash = (row: Record<string, unknown>) => ({ ...row, hash: rowHash(row as unknown as ChainRow) });
const editLine =
  (index: number, change: (row: Record<string, unknown>) => Record<string, unknown>) => (rows: string[]) =>
    rows.map((line, i) => (i === index ? JSON.stringify(change(JSON.parse(line) as Record<string, unknown>)) : line));
/** A forged event after the last, linked and hashed as whoever writes the file can. */
const forgedAfter = (rows: string[]) => {
  const last = JSON.parse(rows.at(-1)!) as ChainRow;
  const forged = {
    ...last,
    seq: last.seq + 1,
    type: 'proposal.approved',
    prevHash: last.hash,
    occurredAt: new Date().toISOString(),
  };
  return [...rows, JSON.stringify({ ...forged, hash: rowHash(forged) })];
};

/**
 * The log rewritten from row `index` on (its data changed, every later row re-linked and re-hashed)
 * and its end line's note signed again over the new tree with the server's own key: a server that
 * forks its log.
 */
async function forkedAt(index: number): Promise<string[]> {
  const rows = events.map((line) => JSON.parse(line) as ChainRow);
  for (let i = index; i < rows.length; i++) {
    const row = {
      ...rows[i]!,
      ...(i === index ? { data: { ...rows[i]!.data, forged: true } } : {}),
      prevHash: i === 0 ? rows[0]!.prevHash : rows[i - 1]!.hash,
    };
    rows[i] = { ...row, hash: rowHash(row) };
  }
  const end = JSON.parse(endLine) as ExportEnd;
  const head = verifyCheckpoint(end.note, keys.jwks);
  const rootHash = rootOf(rows.length, lookUp(subtreesOf(rows.map((row) => eventLeafHash(row.hash)))));
  const note = await signCheckpointNote({ ...head, rootHash }, keys.signing, keys.jwks[0]!);
  return [...rows.map((row) => JSON.stringify(row)), JSON.stringify({ ...end, hash: rows.at(-1)!.hash, note })];
}

describe('verifying an export from files alone', () => {
  it('the export ends with a checkpoint signed note for its last row, whose root the rows make, so a whole export verifies with nothing else', async () => {
    const end = JSON.parse(endLine) as ExportEnd;
    const last = JSON.parse(events.at(-1)!) as ChainRow;
    expect(end).toMatchObject({
      format: 'countersign.export-end/2',
      of: 'events',
      filtered: false,
      filters: {},
      rows: events.length,
      tenant: 'acme',
      seq: last.seq,
      hash: last.hash,
      treeSize: last.seq,
    });
    expect(verifyCheckpoint(end.note, keys.jwks)).toMatchObject({ size: last.seq, origin: end.origin });
    expect(end).not.toHaveProperty('checkpoint');
    const report = await verifyExportLines(lines, { keys: keys.jwks });
    expect(report).toMatchObject({
      ok: true,
      kind: 'whole',
      rows: events.length,
      through: { seq: last.seq, hash: last.hash },
      checkpoints: [last.seq],
    });
    expect(await verifyExportLines(lines, { keys: keys.jwks, checkpoints: [earlier.claim] })).toMatchObject({
      ok: true,
      checkpoints: [earlier.claim.seq, last.seq],
    });
  });

  it('an earlier checkpoint note is proven a prefix from the leaves; a forked or rolled-back log fails', async () => {
    const report = await verifyExportLines(lines, { keys: keys.jwks, earlier: [earlier.head] });
    expect(report).toMatchObject({ ok: true, checkpoints: [earlier.head.size, events.length] });
    if ('unreadable' in report) throw new Error('unreadable');
    expect(report.verified.at(-1)).toBe(
      `the earlier checkpoint #${earlier.head.size} is a prefix of checkpoint #${events.length}: the log was ` +
        `neither rolled back nor forked since`,
    );
    // Forked before the earlier checkpoint: the new end note verifies and the rows make its root, but not the earlier
    // root.
    const forked = await forkedAt(2);
    expect(await verifyExportLines(forked, { keys: keys.jwks })).toMatchObject({ ok: true });
    expect(await verifyExportLines(forked, { keys: keys.jwks, earlier: [earlier.head] })).toMatchObject({
      ok: false,
      broken: { reason: 'checkpoint_mismatch', seq: earlier.head.size },
    });
    // Forked after it: still a prefix.
    expect(
      await verifyExportLines(await forkedAt(earlier.head.size + 1), { keys: keys.jwks, earlier: [earlier.head] }),
    ).toMatchObject({ ok: true });
    // Rolled back before it: the export ends before the earlier checkpoint's size.
    expect(
      await verifyExportLines(events.slice(0, earlier.head.size - 1), { keys: keys.jwks, earlier: [earlier.head] }),
    ).toMatchObject({ ok: false, broken: { reason: 'truncated' } });
  });

  it('rows after the newest checkpoint are never verified: the range no checkpoint covers is named, and the export fails', async () => {
    // An export whose end line is gone (or one from before exports ended with a checkpoint), with forged rows after the
    // saved checkpoint.
    const report = await verifyExportLines(forgedAfter(events), { checkpoints: [earlier.claim], keys: keys.jwks });
    const last = JSON.parse(events.at(-1)!) as ChainRow;
    expect(report).toMatchObject({
      ok: false,
      kind: 'whole',
      uncovered: { from: earlier.claim.seq + 1, to: last.seq + 1 },
      verified: [],
    });
    expect(await verifyExportLines(events, { keys: keys.jwks })).toMatchObject({
      ok: false,
      uncovered: { from: 1, to: last.seq },
    });
    // A forged row after the end line's checkpoint is outside it too.
    expect(await verifyExportLines([...forgedAfter(events), endLine], { keys: keys.jwks })).toMatchObject({
      ok: false,
    });
  });

  it.each<[string, (rows: string[]) => string[], { seq: number | 'end'; reason: string }]>([
    [
      'a line edited (the approver renamed)',
      editLine(4, (row) => ({ ...row, actorName: 'Mallory' })),
      { seq: 5, reason: 'hash_mismatch' },
    ],
    [
      'a line edited (the event type)',
      editLine(2, (row) => ({ ...row, type: 'proposal.rejected' })),
      { seq: 3, reason: 'hash_mismatch' },
    ],
    ['a line dropped', (rows) => rows.filter((_, i) => i !== 3), { seq: 4, reason: 'sequence' }],
    [
      'two lines reordered',
      (rows) => [...rows.slice(0, 3), rows[4]!, rows[3]!, ...rows.slice(5)],
      { seq: 4, reason: 'sequence' },
    ],
  ])('fails on %s', async (_name, tamper, expected) => {
    const report = await verifyExportLines(tamper([...lines]), { keys: keys.jwks });
    expect(report).toMatchObject({ ok: false, broken: { reason: expected.reason, seq: expected.seq } });
  });

  it('a tail rolled back before a saved checkpoint fails (truncated)', async () => {
    const rolledBack = events.slice(0, -5);
    expect(await verifyExportLines(rolledBack, { checkpoints: [earlier.claim] })).toMatchObject({
      ok: false,
      broken: { reason: 'truncated', seq: rolledBack.length + 1 },
    });
  });

  it.each<[string, string[], string]>([
    ['a line that is not an event', ['{"not":"an event"}'], 'is not an exported event'],
    ['an empty file', [''], 'the export holds no events'],
  ])('refuses %s', async (_name, rows, message) => {
    expect(await verifyExportLines(rows)).toMatchObject({
      ok: false,
      unreadable: true,
      message: expect.stringContaining(message),
    });
  });

  it("fails when the checkpoint is another tenant's", async () => {
    expect(await verifyExportLines(events, { checkpoints: [{ ...earlier.claim, tenant: 'globex' }] })).toMatchObject({
      ok: false,
      broken: { reason: 'tenant_mismatch' },
    });
  });

  it("a filtered export (History's, one proposal) verifies as exactly what it is: these events, each included in checkpoint #N — never the whole log", async () => {
    const filtered = await exported({ filters: { q: proposalId }, of: 'events' });
    const rows = filtered.slice(0, -1).map((line) => JSON.parse(line) as ChainRow);
    const end = JSON.parse(filtered.at(-1)!) as ExportEnd;
    expect(rows.length).toBeGreaterThan(1);
    const report = await verifyExportLines(filtered, { keys: keys.jwks });
    expect(report).toMatchObject({ ok: true, kind: 'filtered', rows: rows.length, checkpoints: [end.treeSize] });
    if ('unreadable' in report) throw new Error('unreadable');
    expect(report.verified).toEqual([
      `${rows.length} event(s) of 1 proposal(s), #${rows[0]!.seq} to #${rows.at(-1)!.seq}, in sequence ` +
        `order, each re-hashing and included in checkpoint #${end.treeSize} (tree size ${end.treeSize}) ` +
        `of ${end.origin}`,
    ]);
    expect(report.unverified[0]).toMatch(/^of, filters \(that these are every event the filters select/);
    // An edited row, a row made up and hashed by whoever wrote the file, a proof taken away: each fails.
    expect(await verifyExportLines(editLine(0, (row) => ({ ...row, actorName: 'Mallory' }))(filtered))).toMatchObject({
      ok: false,
      broken: { reason: 'hash_mismatch' },
    });
    expect(
      await verifyExportLines(editLine(0, (row) => rehash({ ...row, actorName: 'Mallory' }))(filtered)),
    ).toMatchObject({ ok: false, broken: { reason: 'inclusion', seq: rows[0]!.seq } });
    expect(
      await verifyExportLines(
        editLine(1, (row) => Object.fromEntries(Object.entries(row).filter(([field]) => field !== 'inclusion')))(
          filtered,
        ),
      ),
    ).toMatchObject({ ok: false, broken: { reason: 'inclusion' } });
  });

  it('a filtered export is held to an earlier checkpoint by a consistency proof (the API’s), and fails without one or with a wrong one', async () => {
    const filtered = await exported({ filters: { q: proposalId }, of: 'events' });
    const end = JSON.parse(filtered.at(-1)!) as ExportEnd;
    const proof = await consistencyProofFile(t.db, 'acme', earlier.head.size, end.treeSize);
    const report = await verifyExportLines(filtered, { keys: keys.jwks, earlier: [earlier.head], consistency: proof });
    expect(report).toMatchObject({ ok: true, checkpoints: [end.treeSize] });
    if ('unreadable' in report) throw new Error('unreadable');
    expect(report.verified.at(-1)).toBe(
      `the earlier checkpoint #${earlier.head.size} is a prefix of checkpoint #${end.treeSize}: the log was ` +
        `neither rolled back nor forked since`,
    );
    expect(await verifyExportLines(filtered, { keys: keys.jwks, earlier: [earlier.head] })).toMatchObject({
      ok: false,
      broken: { reason: 'inconsistent', detail: expect.stringContaining('--consistency') },
    });
    const wrong = await consistencyProofFile(t.db, 'acme', earlier.head.size - 1, end.treeSize);
    expect(
      await verifyExportLines(filtered, { keys: keys.jwks, earlier: [earlier.head], consistency: wrong }),
    ).toMatchObject({ ok: false, broken: { reason: 'inconsistent' } });
    // An earlier checkpoint of another tree of the same size (a fork) fails however the proof reads.
    const fork = { ...earlier.head, rootHash: Buffer.alloc(32, 7) };
    expect(await verifyExportLines(filtered, { keys: keys.jwks, earlier: [fork], consistency: proof })).toMatchObject({
      ok: false,
      broken: { reason: 'inconsistent' },
    });
  });

  it('gives the same answer with the clock a year ahead', async () => {
    const now = await verifyExportLines(lines, { keys: keys.jwks, checkpoints: [earlier.claim] });
    vi.useFakeTimers({ now: Date.now() + A_YEAR_MS, toFake: ['Date'] });
    expect(await verifyExportLines(lines, { keys: keys.jwks, checkpoints: [earlier.claim] })).toEqual(now);
  });
});

describe('npm run cli -- audit:verify --export events.jsonl [--checkpoint checkpoint.json] --keys jwks.json', () => {
  const run = async (rows: string[], extra: string[] = [], clockAheadMs?: number) => {
    const file = path.join(dir, `events-${rows.length}-${Math.random().toString(36).slice(2)}.jsonl`);
    await fs.writeFile(file, `${rows.join('\n')}\n`);
    const dataDir = path.join(dir, 'no-database-here');
    const result = await runCli(
      ['audit:verify', '--export', file, ...extra, '--keys', path.join(dir, 'jwks.json')],
      dataDir,
      { clockAheadMs },
    );
    // Nothing opened (or created) a database.
    await expect(fs.stat(dataDir)).rejects.toThrow();
    return result;
  };
  const last = () => JSON.parse(events.at(-1)!) as ChainRow;

  it('passes a whole export, opening no database, a year later too', async () => {
    for (const ahead of [undefined, A_YEAR_MS]) {
      const result = await run(lines, ['--checkpoint', earlier.file], ahead);
      expect(result.stderr).toBe('');
      expect(result.stdout).toBe(
        [
          'Verified:',
          `  ${events.length} event(s) of acme, #1 to #${last().seq}, re-hash as one unbroken chain from genesis`,
          `  their tree's root is the one checkpoint #${last().seq} (tree size ${last().seq}) ` +
            `of ${(JSON.parse(endLine) as ExportEnd).origin} signs: no row was changed, dropped, added or moved`,
          `  the earlier checkpoint #${earlier.head.size} is a prefix of checkpoint #${last().seq}: the log ` +
            `was neither rolled back nor forked since`,
          'Not verified:',
          '  actorLabel (each line’s actor as the dashboard named it at export time: not hashed)',
          '  keys (the end line’s own: not used, the keys given with --keys were)',
          'The export verifies.',
          '',
        ].join('\n'),
      );
      expect(result.code).toBe(0);
    }
  });

  it('exits 1 on rows forged after the newest checkpoint, naming the range no checkpoint covers', async () => {
    const result = await run(forgedAfter(events), ['--checkpoint', earlier.file]);
    const from = earlier.claim.seq + 1;
    const to = last().seq + 1;
    expect(result.stdout).toBe(
      `acme: #${from} to #${to} are covered by no signed checkpoint (the newest is #${earlier.claim.seq}): ` +
        `those ${to - from + 1} row(s) are not verified\n`,
    );
    expect(result.stderr).toBe(
      `Error: the export does not verify: acme #${from} to #${to} are covered by no checkpoint (pass a ` +
        `checkpoint saved after them, or export again: an export ends with one)\n`,
    );
    expect(result.code).toBe(1);
  });

  it('passes a filtered export as what it is, its events each included in the checkpoint, consistent with an earlier one by --consistency; a wrong proof exits 1', async () => {
    const filtered = await exported({ filters: { q: proposalId }, of: 'events' });
    const end = JSON.parse(filtered.at(-1)!) as ExportEnd;
    const proofFile = path.join(dir, 'consistency.json');
    await fs.writeFile(
      proofFile,
      JSON.stringify(await consistencyProofFile(t.db, 'acme', earlier.head.size, end.treeSize)),
    );
    const result = await run(filtered, ['--checkpoint', earlier.file, '--consistency', proofFile], A_YEAR_MS);
    expect(result.stdout).toMatch(
      new RegExp(
        `^acme: a filtered export: it proves the events it holds, not the whole log\\nVerified:\\n ` +
          ` ${filtered.length - 1} event\\(s\\) of 1 proposal\\(s\\), #\\d+ to #\\d+, in sequence order, each ` +
          `re-hashing and included in checkpoint #${end.treeSize} \\(tree size ${end.treeSize}\\)`,
      ),
    );
    expect(result.stdout).toContain(
      `  the earlier checkpoint #${earlier.head.size} is a prefix of checkpoint #${end.treeSize}`,
    );
    expect(result.stdout).toContain('Not verified:\n  of, filters (that these are every event the filters select');
    expect(result.stdout).toContain(
      `The export's ${filtered.length - 1} event(s) verify, each included in checkpoint #${end.treeSize}.`,
    );
    expect(result.stdout).not.toContain('The export verifies.');
    expect(result.code).toBe(0);
    await fs.writeFile(
      proofFile,
      JSON.stringify(await consistencyProofFile(t.db, 'acme', earlier.head.size - 1, end.treeSize)),
    );
    const refused = await run(filtered, ['--checkpoint', earlier.file, '--consistency', proofFile]);
    expect(refused.stdout).toContain(
      `acme: BROKEN at #${end.treeSize} — the export's checkpoint does not extend the earlier one (a ` +
        `rolled-back or forked log) (inconsistent)`,
    );
    expect(refused.code).toBe(1);
  });

  it.each<[string, (rows: string[]) => string[], () => string]>([
    ['an edited line', editLine(4, (row) => ({ ...row, actorName: 'Mallory' })), () => 'acme #5 (hash_mismatch)'],
    ['a dropped line', (rows) => rows.filter((_, i) => i !== 3), () => 'acme #4 (sequence)'],
    [
      'a reordered line',
      (rows) => [...rows.slice(0, 3), rows[4]!, rows[3]!, ...rows.slice(5)],
      () => 'acme #4 (sequence)',
    ],
  ])('exits 1 on %s, saying where', async (_name, tamper, says) => {
    const result = await run(tamper([...lines]));
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('acme: BROKEN at #');
    expect(result.stderr).toBe(`Error: the export does not verify: ${says()}\n`);
  });
});
