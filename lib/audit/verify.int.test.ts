import { beforeAll, describe, expect, it } from 'vitest';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { auditChain } from '@/test/queries';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { type ChainPoint, type ChainRow, type CheckpointClaim, chainVerifier, rowHash, uncoveredRows } from './verify';

/** The corruption table of docs/design.md §8, run against copies of a real chain read from the database. */
const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let chain: ChainRow[];

beforeAll(async () => {
  for (let i = 0; i < 6; i++) {
    await submitAs(t.db, systems.client, seeded.acme, {
      requestId: `req_chain_${i}`,
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    });
  }
  chain = await auditChain(t.db, 'acme');
  expect(chain.length).toBeGreaterThanOrEqual(12);
});

const N = () => chain.length;
const headOf = (rows: ChainRow[]): ChainPoint => ({ seq: rows.at(-1)!.seq, hash: rows.at(-1)!.hash });
const checkpointAt = (rows: ChainRow[], seq: number): CheckpointClaim => ({
  tenant: 'acme',
  seq,
  hash: rows[seq - 1]!.hash,
  at: new Date().toISOString(),
});

/** Rewrites rows from index `from` on so the chain is consistent again (what someone with the database would do). */
function rehashFrom(rows: ChainRow[], from: number): ChainRow[] {
  const out = rows.map((row) => ({ ...row }));
  for (let i = from; i < out.length; i++) {
    const row = out[i]!;
    row.prevHash = i === 0 ? row.prevHash : out[i - 1]!.hash;
    row.hash = rowHash(row);
  }
  return out;
}

function verify(rows: ChainRow[], options: { head?: ChainPoint; checkpoints?: CheckpointClaim[] } = {}) {
  const verifier = chainVerifier('acme', options.checkpoints);
  // Fed in small pages, as the CLI reads them.
  for (let i = 0; i < rows.length; i += 4) verifier.push(rows.slice(i, i + 4));
  return verifier.finish(options.head);
}

const edit = (seq: number, change: Partial<ChainRow>) => (rows: ChainRow[]) =>
  rows.map((row) => (row.seq === seq ? { ...row, ...change } : row));
const flipBit = (text: string, index: number) =>
  text.slice(0, index) + String.fromCharCode(text.charCodeAt(index) ^ 1) + text.slice(index + 1);

type Case = [
  string,
  (rows: ChainRow[]) => ChainRow[],
  { seq: number | (() => number); reason: string; head?: 'original' | 'tampered'; checkpointAt?: () => number },
];

describe('chain verification', () => {
  it('a real chain verifies, in pages, against its head and a checkpoint', () => {
    expect(verify(chain, { head: headOf(chain), checkpoints: [checkpointAt(chain, 7)] })).toEqual({
      ok: true,
      tenant: 'acme',
      through: headOf(chain),
      checkpoints: 1,
    });
  });

  it.each<Case>([
    ['the type edited', edit(5, { type: 'proposal.approved' }), { seq: 5, reason: 'hash_mismatch' }],
    ['the actor edited', edit(5, { actorId: 'usr_someone_else' }), { seq: 5, reason: 'hash_mismatch' }],
    ['the actor type edited', edit(5, { actorType: 'user' }), { seq: 5, reason: 'hash_mismatch' }],
    ['the proposal id edited', edit(5, { proposalId: 'prp_other' }), { seq: 5, reason: 'hash_mismatch' }],
    [
      'the payload hash edited',
      edit(5, { payloadHash: `sha256:${'1'.repeat(64)}` }),
      { seq: 5, reason: 'hash_mismatch' },
    ],
    ['the reason code edited', edit(5, { reasonCode: 'looked_fine' }), { seq: 5, reason: 'hash_mismatch' }],
    ['the contract version edited', edit(5, { contractVersion: 2 }), { seq: 5, reason: 'hash_mismatch' }],
    ['the data edited', edit(5, { data: { approver: 'nobody' } }), { seq: 5, reason: 'hash_mismatch' }],
    [
      'the time edited by one second',
      (rows) => edit(5, { occurredAt: new Date(new Date(rows[4]!.occurredAt).getTime() + 1000).toISOString() })(rows),
      { seq: 5, reason: 'hash_mismatch' },
    ],
    [
      'one bit of the stored hash flipped',
      (rows) => edit(5, { hash: flipBit(rows[4]!.hash, 20) })(rows),
      { seq: 5, reason: 'hash_mismatch' },
    ],
    [
      'one bit of the previous hash flipped',
      (rows) => edit(5, { prevHash: flipBit(rows[4]!.prevHash, 30) })(rows),
      { seq: 5, reason: 'prev_hash_mismatch' },
    ],
    ['a row deleted', (rows) => rows.filter((row) => row.seq !== 5), { seq: 5, reason: 'sequence' }],
    [
      'a row deleted and the rest renumbered',
      (rows) => rows.filter((row) => row.seq !== 5).map((row) => (row.seq > 5 ? { ...row, seq: row.seq - 1 } : row)),
      { seq: 5, reason: 'prev_hash_mismatch' },
    ],
    [
      'a forged row inserted, its hash consistent',
      (rows) => [
        ...rows.slice(0, 4),
        rehashFrom([rows[3]!, { ...rows[4]!, data: { forged: true } }], 1)[1]!,
        ...rows.slice(4),
      ],
      { seq: 6, reason: 'sequence' },
    ],
    [
      'two rows swapped',
      (rows) => [...rows.slice(0, 4), rows[5]!, rows[4]!, ...rows.slice(6)],
      { seq: 5, reason: 'sequence' },
    ],
    [
      'the history rewritten from #5 on, re-hashed',
      (rows) => rehashFrom(edit(5, { data: { rewritten: true } })(rows), 4),
      { seq: () => N(), reason: 'head_mismatch', head: 'original' },
    ],
    [
      'the tail truncated (the head still says more)',
      (rows) => rows.slice(0, -3),
      { seq: () => N() - 2, reason: 'truncated', head: 'original' },
    ],
    [
      'the tail rolled back with its head, caught by a checkpoint',
      (rows) => rows.slice(0, -3),
      { seq: () => N() - 2, reason: 'truncated', head: 'tampered', checkpointAt: () => N() },
    ],
    [
      'a fork after a checkpoint was taken, re-hashed with its head',
      (rows) => rehashFrom(edit(5, { data: { forked: true } })(rows), 4),
      { seq: 10, reason: 'checkpoint_mismatch', head: 'tampered', checkpointAt: () => 10 },
    ],
    ['a row of another tenant mixed in', edit(5, { tenantId: 'globex' }), { seq: 5, reason: 'tenant_mismatch' }],
  ])('detects %s at the right sequence number', (_name, corrupt, expected) => {
    const tampered = corrupt(chain.map((row) => ({ ...row })));
    const head = expected.head === 'tampered' ? headOf(tampered) : headOf(chain);
    const checkpoints = expected.checkpointAt ? [checkpointAt(chain, expected.checkpointAt())] : [];
    const report = verify(tampered, { head, checkpoints });
    expect(report).toMatchObject({
      ok: false,
      seq: typeof expected.seq === 'function' ? expected.seq() : expected.seq,
      reason: expected.reason,
    });
  });

  it('without a checkpoint, a tail rolled back together with its head looks whole (why auditors keep checkpoints)', () => {
    const rolledBack = chain.slice(0, -3);
    expect(verify(rolledBack, { head: headOf(rolledBack) })).toMatchObject({ ok: true });
  });
});

describe('coverage by signed checkpoints', () => {
  it('names the rows after the newest checkpoint of the tenant, and none when the newest is at the end', () => {
    const through = headOf(chain);
    expect(uncoveredRows('acme', through, [])).toEqual({ from: 1, to: N() });
    expect(uncoveredRows('acme', through, [checkpointAt(chain, 3), checkpointAt(chain, 5)])).toEqual({
      from: 6,
      to: N(),
    });
    expect(uncoveredRows('acme', through, [{ ...checkpointAt(chain, N()), tenant: 'globex' }])).toEqual({
      from: 1,
      to: N(),
    });
    expect(uncoveredRows('acme', through, [checkpointAt(chain, 5), checkpointAt(chain, N())])).toBeUndefined();
  });
});
