import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditEvents } from '@/db/schema';
import { executeCommand } from '@/lib/commands/execute';
import { decide } from '@/lib/decisions/decide';
import { payloadHash } from '@/lib/payload-hash';
import { type CommandKeys, commandKeys, type PublicJwk } from '@/lib/signing/keys';
import { A_YEAR_MS, runCli } from '@/test/cli';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, writeClients } from '@/test/fixtures/jobs';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { buildEvidenceBundle } from './bundle';
import { actorLabel, UNVERIFIED_FIELDS } from './bundle-story';
import { type EvidenceBundle, verifyBundle } from './bundle-verify';
import { eventLeafHash } from './tlog/leaf';
import { inclusionRanges, lookUp, proofHashes, rootOf, subtreesOf } from './tlog/merkle';
import { signCheckpointNote, verifyCheckpoint } from './tlog/note';
import { rowHash } from './verify';

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let bundle: EvidenceBundle;
let trusted: PublicJwk[];
let keys: CommandKeys;

beforeAll(async () => {
  const now = new Date();
  const minted = await approvedCommand(
    t.db,
    systems.client,
    seeded.acme,
    seeded.world.userId('alice'),
    {
      requestId: 'req_bundle_1',
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 1500, currency: 'USD', reason: 'Damaged in transit' },
    },
    now,
  );
  // Another proposal's event lands between this one's first and last: the bundle leaves it out.
  await submitAs(
    t.db,
    systems.client,
    seeded.acme,
    {
      requestId: 'req_bundle_other',
      action: 'hold_stock',
      contractVersion: 1,
      args: { sku: 'filter-blue', quantity: 1 },
    },
    { now },
  );
  const write = writeClients(systems.systems.service.url, systems.systems.credentials);
  const execution = await executeCommand(t.db, {
    scope: minted.scope,
    jws: minted.jws,
    systems: systems.client,
    writeClient: write(minted.scope),
    deadlineMs: 1_000,
  });
  expect(execution.status).toBe('succeeded');
  keys = await commandKeys();
  trusted = keys.jwks;
  bundle = (await buildEvidenceBundle(t.db, 'acme', minted.proposal.id, keys))!;
});

const copy = (): EvidenceBundle => structuredClone(bundle);
const failed = async (tampered: unknown, keys: PublicJwk[] | 'bundle' = trusted) =>
  (await verifyBundle(tampered, keys === 'bundle' ? undefined : keys)).checks
    .filter((check) => !check.ok)
    .map((check) => check.check);

type Event = EvidenceBundle['events'][number];
const ZERO_HASH = `sha256:${'0'.repeat(64)}`;
const editEvent =
  (type: string, change: (event: Event) => Event) =>
  (b: EvidenceBundle): EvidenceBundle => ({ ...b, events: b.events.map((e) => (e.type === type ? change(e) : e)) });
/** An event changed and its own hash recomputed (what someone who can write the file does). */
const rehashed =
  (change: Partial<Event>) =>
  (event: Event): Event => {
    const changed = { ...event, ...change };
    return { ...changed, hash: rowHash(changed) };
  };
const withoutEvent =
  (type: string) =>
  (b: EvidenceBundle): EvidenceBundle => ({ ...b, events: b.events.filter((e) => e.type !== type) });

/** A command with the same claims, signed by a key the auditor does not trust, announced in the bundle. */
async function resignedElsewhere(original: EvidenceBundle): Promise<EvidenceBundle> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const kid = 'attacker-key';
  const jws = await new SignJWT(decodeJwt(original.command!.jws))
    .setProtectedHeader({ alg: 'EdDSA', typ: decodeProtectedHeader(original.command!.jws).typ, kid })
    .sign(privateKey);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } as PublicJwk;
  return { ...original, command: { ...original.command!, jws, kid }, keys: [...original.keys, jwk] };
}

afterEach(() => {
  vi.useRealTimers();
});

/**
 * The last event changed and re-hashed, the tenant's tree rebuilt in memory with that leaf, every
 * proof made again and the checkpoint signed again with the server's key: a bundle as the server
 * would have made it.
 */
async function resealedWithLast(original: EvidenceBundle, change: (event: Event) => Event): Promise<EvidenceBundle> {
  const last = rehashed({})(change(original.events.at(-1)!));
  const head = verifyCheckpoint(original.checkpoint, keys.jwks);
  const stored = await t.db
    .select({ seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .where(eq(auditEvents.tenantId, original.tenant))
    .orderBy(asc(auditEvents.seq))
    .limit(head.size);
  const node = lookUp(subtreesOf(stored.map((row) => eventLeafHash(row.seq === last.seq ? last.hash : row.hash))));
  const reproved = (row: Event): Event => ({
    ...row,
    inclusion: {
      ...row.inclusion,
      hashes: proofHashes(inclusionRanges(row.seq - 1, head.size), node).map((hash) =>
        Buffer.from(hash).toString('base64'),
      ),
    },
  });
  const checkpoint = await signCheckpointNote(
    { ...head, rootHash: rootOf(head.size, node) },
    keys.signing,
    keys.jwks[0]!,
  );
  return { ...original, events: [...original.events.slice(0, -1), last].map(reproved), checkpoint };
}

/** The command's claims with its time window moved, signed again with the server's own key. */
async function commandWindowMoved(original: EvidenceBundle, seconds: number): Promise<EvidenceBundle> {
  const claims = decodeJwt(original.command!.jws);
  const moved = { ...claims, iat: claims.iat! + seconds, nbf: claims.nbf! + seconds, exp: claims.exp! + seconds };
  const jws = await new SignJWT(moved)
    .setProtectedHeader(decodeProtectedHeader(original.command!.jws) as { alg: string })
    .sign(keys.signing.key);
  return { ...original, command: { ...original.command!, jws } };
}

describe('evidence bundles', () => {
  it('a real bundle verifies in every check, offline', async () => {
    const report = await verifyBundle(JSON.parse(JSON.stringify(bundle)), trusted);
    expect(report.checks.map((check) => [check.check, check.ok])).toEqual([
      ['payload_hash', true],
      ['approvals_bind_hash', true],
      ['command', true],
      ['receipt', true],
      ['events', true],
      ['checkpoint', true],
      ['inclusion', true],
      ['decisions', true],
      ['status', true],
      ['execution', true],
      ['proposal', true],
    ]);
    expect(bundle.events.map((row) => row.type)).toEqual([
      'proposal.created',
      'proposal.approved',
      'command.minted',
      'execution.started',
      'execution.succeeded',
    ]);
    // The other proposal's event between them is not in the bundle: the proof of each event stands alone.
    expect(bundle.events.every((row) => row.proposalId === bundle.proposal.id)).toBe(true);
    expect(bundle).not.toHaveProperty('interleaved');
    expect(bundle.events[3]!.seq - bundle.events[2]!.seq).toBeGreaterThan(1);
    expect(JSON.stringify(bundle)).not.toMatch(/"d":/);
  });

  it.each<[string, (b: EvidenceBundle) => EvidenceBundle | Promise<EvidenceBundle>, string[]]>([
    [
      'the amount changed',
      (b) => ({ ...b, payload: { ...b.payload, args: { ...b.payload.args, amountMinor: 15000 } } }),
      ['payload_hash', 'receipt', 'proposal'],
    ],
    [
      'the amount changed and the hash recomputed',
      (b) => {
        const payload = { ...b.payload, args: { ...b.payload.args, amountMinor: 15000 } };
        return { ...b, payload, canonicalPayload: JSON.stringify(payload), payloadHash: payloadHash(payload) };
      },
      ['payload_hash', 'approvals_bind_hash', 'command', 'receipt', 'events', 'proposal'],
    ],
    [
      'an approval moved to another hash',
      (b) => ({ ...b, decisions: b.decisions.map((d) => ({ ...d, payloadHash: ZERO_HASH })) }),
      ['approvals_bind_hash', 'decisions'],
    ],
    [
      'the approval event rewritten to another hash',
      editEvent('proposal.approved', (e) => ({ ...e, payloadHash: ZERO_HASH })),
      ['events', 'inclusion', 'decisions'],
    ],
    ['the command re-signed with another key', resignedElsewhere, ['command']],
    [
      'the receipt swapped for another amount',
      (b) => ({
        ...b,
        execution: { ...b.execution!, receipt: { ...(b.execution!.receipt as object), amountMinor: 1 } },
      }),
      ['receipt'],
    ],
    [
      'an event’s time edited',
      (b) => ({
        ...b,
        events: b.events.map((e, index) => (index === 0 ? { ...e, occurredAt: new Date(0).toISOString() } : e)),
      }),
      ['events', 'inclusion', 'proposal'],
    ],
    [
      'the approver renamed',
      (b) => ({ ...b, decisions: b.decisions.map((d) => ({ ...d, name: 'Mallory' })) }),
      ['decisions'],
    ],
    [
      'the approver renamed in the event too, its hash recomputed',
      (b) =>
        editEvent(
          'proposal.approved',
          rehashed({ actorName: 'Mallory' }),
        )({ ...b, decisions: b.decisions.map((d) => ({ ...d, name: 'Mallory' })) }),
      ['inclusion'],
    ],
    [
      'a second (fake) approval added',
      (b) => ({ ...b, decisions: [...b.decisions, { ...b.decisions[0]!, userId: 'usr_mallory', name: 'Mallory' }] }),
      ['decisions'],
    ],
    ['the proposal.approved event deleted', withoutEvent('proposal.approved'), ['decisions', 'status']],
    [
      'the proposal.approved event and its decision deleted (a command for a proposal never approved)',
      (b) => ({ ...withoutEvent('proposal.approved')(b), decisions: [] }),
      ['status'],
    ],
    [
      'another event’s inclusion proof given to an event',
      (b) => ({
        ...b,
        events: b.events.map((e, index) => (index === 1 ? { ...e, inclusion: b.events[0]!.inclusion } : e)),
      }),
      ['inclusion'],
    ],
    [
      'an inclusion proof’s hash changed',
      (b) => ({
        ...b,
        events: b.events.map((e, index) =>
          index === 1
            ? { ...e, inclusion: { ...e.inclusion, hashes: [...e.inclusion.hashes.slice(1), e.inclusion.hashes[0]!] } }
            : e,
        ),
      }),
      ['inclusion'],
    ],
    [
      'the checkpoint signed by a key the auditor does not trust',
      async (b) => {
        const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
        const checkpoint = await signCheckpointNote(
          verifyCheckpoint(b.checkpoint, keys.jwks),
          { kid: 'attacker-key', key: privateKey as CryptoKey },
          { x: (await exportJWK(publicKey)).x! },
        );
        return { ...b, checkpoint };
      },
      ['checkpoint', 'inclusion'],
    ],
    [
      'the risk changed',
      (b) => ({ ...b, proposal: { ...b.proposal, risk: b.proposal.risk === 'low' ? 'high' : 'low' } }),
      ['proposal'],
    ],
    ['the agent changed', (b) => ({ ...b, proposal: { ...b.proposal, agentName: 'trusted-bot' } }), ['proposal']],
    [
      'the routing rule changed',
      (b) => ({ ...b, proposal: { ...b.proposal, routing: { ...b.proposal.routing, rule: 'board_approved' } } }),
      ['proposal'],
    ],
    [
      'the approvals required changed',
      (b) => ({ ...b, proposal: { ...b.proposal, routing: { ...b.proposal.routing, approvals: 3 } } }),
      ['proposal'],
    ],
    ['the status changed', (b) => ({ ...b, proposal: { ...b.proposal, status: 'rejected' } }), ['status']],
    [
      'the execution outcome changed',
      (b) => ({ ...b, execution: { ...b.execution!, status: 'failed' } }),
      ['execution'],
    ],
    [
      'the creation time changed',
      (b) => ({ ...b, proposal: { ...b.proposal, createdAt: new Date(0).toISOString() } }),
      ['proposal'],
    ],
  ])('detects %s', async (_name, tamper, expected) => {
    expect(await failed(await tamper(copy()))).toEqual(expected);
  });

  it.each<[string, (b: EvidenceBundle) => EvidenceBundle, string]>([
    ['the gates changed', (b) => ({ ...b, gates: [] }), 'gates'],
    ['the raw body changed', (b) => ({ ...b, rawCandidate: '{"forged":true}' }), 'rawCandidate'],
    [
      'the status reason changed',
      (b) => ({ ...b, proposal: { ...b.proposal, statusReason: 'Approved by the board' } }),
      'proposal.statusReason',
    ],
  ])('%s: no hash covers it, so it passes only as "not verified"', async (_name, tamper, field) => {
    const report = await verifyBundle(tamper(copy()), trusted);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.unverified.some((line) => line.startsWith(field))).toBe(true);
    expect(report.verified.join('\n')).not.toContain(field);
  });

  it('says what it verified, from the events: who approved (name and id), when, under which rule, the outcome', async () => {
    const report = await verifyBundle(copy(), trusted);
    const approval = bundle.events.find((e) => e.type === 'proposal.approved')!;
    const outcome = bundle.events.at(-1)!;
    const head = verifyCheckpoint(bundle.checkpoint, trusted);
    expect(report.verified).toEqual([
      `proposal ${bundle.proposal.id} (acme): issue_refund v1, payload ${bundle.payloadHash}, ` +
        `risk ${bundle.proposal.risk}`,
      `proposed by agent ${bundle.proposal.agentName} (${bundle.events[0]!.actorId}) at ${bundle.proposal.createdAt}`,
      `routing: rule "${bundle.proposal.routing.rule}" of policy v${bundle.proposal.routing.policyVersion}, ` +
        `needs_approval, 1 approval(s) required`,
      `approved by Alice (${seeded.world.userId('alice')}) at ${approval.occurredAt} (event #${approval.seq})`,
      'approvals counted: 1 of 1 required (withdrawn ones never count)',
      `status: succeeded (event #${outcome.seq})`,
      `execution: succeeded at ${outcome.occurredAt} (event #${outcome.seq}), its receipt the one this event recorded`,
      `log: events ${bundle.events.map((row) => `#${row.seq}`).join(', ')} of acme, each included in ` +
        `checkpoint #${head.size} (tree size ${head.size}) of ${head.origin}, signed with ${trusted[0]!.kid}`,
    ]);
    expect(report.unverified).toEqual([
      ...UNVERIFIED_FIELDS,
      "keys (the bundle's own: not used, the keys given with --keys were)",
    ]);
    expect((await verifyBundle(copy())).unverified.at(-1)).toMatch(
      /^keys \(the bundle's own: they prove integrity, not who signed/,
    );
  });

  it('an actor name not recorded in the event is printed as unverified', () => {
    expect(actorLabel(null, 'usr_1')).toBe('usr_1 (name unverified)');
    expect(actorLabel('Alice', 'usr_1')).toBe('Alice (usr_1)');
  });

  it('a command re-signed with a key the bundle itself announces: its kid is not the one the chained command.minted event records, and pinned keys refuse it too', async () => {
    const tampered = await resignedElsewhere(copy());
    expect(await failed(tampered, 'bundle')).toEqual(['command']);
    expect(await failed(tampered)).toEqual(['command']);
  });

  it('a proposal rejected after its approval, whose command was then refused, verifies as rejected with a failed execution', async () => {
    const minted = await approvedCommand(
      t.db,
      systems.client,
      seeded.acme,
      seeded.world.userId('alice'),
      {
        requestId: 'req_bundle_overruled',
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-blue', quantity: 1 },
      },
      new Date(),
    );
    await decide(t.db, systems.client, {
      userId: seeded.world.userId('bob'),
      proposalId: minted.proposal.id,
      request: { decision: 'reject', payloadHash: minted.proposal.payloadHash, reason: 'Deny wins' },
    });
    const write = writeClients(systems.systems.service.url, systems.systems.credentials);
    expect(
      (
        await executeCommand(t.db, {
          scope: minted.scope,
          jws: minted.jws,
          systems: systems.client,
          writeClient: write(minted.scope),
          deadlineMs: 1_000,
        })
      ).status,
    ).toBe('failed');
    const overruled = (await buildEvidenceBundle(t.db, 'acme', minted.proposal.id, await commandKeys()))!;
    const report = await verifyBundle(overruled, trusted);
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.verified).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^approved by Alice/),
        expect.stringMatching(/^rejected by Bob/),
        expect.stringMatching(/^status: rejected/),
        expect.stringMatching(/^execution: failed/),
      ]),
    );
  });

  it('bundle:verify prints the checks, what it verified and what it did not; a forged bundle exits 1', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cs-bundle-verify-'));
    const [good, forged, jwks] = ['bundle.json', 'forged.json', 'jwks.json'].map((name) => path.join(dir, name)) as [
      string,
      string,
      string,
    ];
    await fs.writeFile(good, JSON.stringify(bundle));
    await fs.writeFile(
      forged,
      JSON.stringify({ ...copy(), decisions: copy().decisions.map((d) => ({ ...d, name: 'Mallory' })) }),
    );
    await fs.writeFile(jwks, JSON.stringify({ keys: trusted }));
    const noDatabase = path.join(dir, 'no-database-here');
    const passed = await runCli(['bundle:verify', good, '--keys', jwks], noDatabase);
    const report = await verifyBundle(copy(), trusted);
    expect(passed.stdout).toBe(
      [
        ...report.checks.map((check) => `ok   ${check.check}: ${check.detail}`),
        'Verified:',
        ...report.verified.map((line) => `  ${line}`),
        'Not verified (shown by the bundle, covered by no hash or signature):',
        ...report.unverified.map((line) => `  ${line}`),
        'The bundle verifies.',
        '',
      ].join('\n'),
    );
    expect(passed.code).toBe(0);
    const refused = await runCli(['bundle:verify', forged, '--keys', jwks], noDatabase);
    expect(refused.stdout).toContain('FAIL decisions: the approve by Mallory');
    expect(refused.stdout).not.toContain('Verified:');
    expect(refused.stderr).toBe('Error: the bundle does not verify: decisions\n');
    expect(refused.code).toBe(1);
    await expect(fs.stat(noDatabase)).rejects.toThrow();
  });

  it('gives the same answer a year later: the command’s time claims are held against the recorded execution, never the verifier’s clock', async () => {
    const today = await verifyBundle(copy(), trusted);
    expect(today.checks.find((check) => check.check === 'command')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/executed within it \(event #\d+\)$/),
    });
    vi.useFakeTimers({ now: Date.now() + A_YEAR_MS, toFake: ['Date'] });
    expect(await verifyBundle(copy(), trusted)).toEqual(today);
  });

  it.each([
    ['an hour before it was valid', 3_600],
    ['an hour after it expired', -3_600],
  ])('fails a command executed %s', async (_name, seconds) => {
    expect(await failed(await commandWindowMoved(copy(), seconds))).toEqual(['command']);
  });

  it.each([
    ['id', (receipt: Record<string, unknown>) => ({ ...receipt, id: `${String(receipt.id)}x` })],
    ['createdAt', (receipt: Record<string, unknown>) => ({ ...receipt, createdAt: new Date(0).toISOString() })],
    ['a field added', (receipt: Record<string, unknown>) => ({ ...receipt, note: 'refunded twice' })],
  ])("fails a receipt whose %s changed: the outcome event records the receipt's hash", async (field, change) => {
    const receipt = bundle.execution!.receipt as Record<string, unknown>;
    if (field !== 'a field added') expect(receipt).toHaveProperty(field);
    expect(bundle.events.at(-1)!.data.receiptHash).toBe(payloadHash(receipt));
    expect(await failed({ ...copy(), execution: { ...bundle.execution!, receipt: change(receipt) } })).toEqual([
      'receipt',
    ]);
  });

  it('an outcome event from before receipts were hashed leaves the receipt under "Not verified", never as matching', async () => {
    const older = await resealedWithLast(copy(), (event) => ({
      ...event,
      data: Object.fromEntries(Object.entries(event.data).filter(([name]) => name !== 'receiptHash')),
    }));
    const report = await verifyBundle(
      {
        ...older,
        execution: {
          ...older.execution!,
          receipt: { ...(older.execution!.receipt as object), createdAt: new Date(0).toISOString() },
        },
      },
      trusted,
    );
    expect(report.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.unverified).toContain(
      `execution.receipt (outcome event #${older.events.at(-1)!.seq} was written before receipts were hashed into it)`,
    );
    expect(report.verified.join('\n')).toContain(
      'its receipt for this operation (its hash was not recorded: see Not verified)',
    );
  });

  it('reads the story in sequence order: an overruled proposal with its events reordered fails, never "approved"', async () => {
    const minted = await approvedCommand(
      t.db,
      systems.client,
      seeded.acme,
      seeded.world.userId('alice'),
      {
        requestId: 'req_bundle_reordered',
        action: 'hold_stock',
        contractVersion: 1,
        args: { sku: 'filter-blue', quantity: 3 },
      },
      new Date(),
    );
    await decide(t.db, systems.client, {
      userId: seeded.world.userId('bob'),
      proposalId: minted.proposal.id,
      request: { decision: 'reject', payloadHash: minted.proposal.payloadHash, reason: 'Deny wins' },
    });
    const overruled = (await buildEvidenceBundle(t.db, 'acme', minted.proposal.id, keys))!;
    expect((await verifyBundle(overruled, trusted)).verified).toEqual(
      expect.arrayContaining([expect.stringMatching(/^status: rejected/)]),
    );
    const types = overruled.events.map((event) => event.type);
    const [approved, rejected] = [types.indexOf('proposal.approved'), types.indexOf('proposal.rejected')];
    expect(approved).toBeLessThan(rejected);
    const swapped = overruled.events.map((event, index) =>
      index === approved ? overruled.events[rejected]! : index === rejected ? overruled.events[approved]! : event,
    );
    for (const events of [swapped, [...overruled.events].reverse(), [...overruled.events, overruled.events.at(-1)!]]) {
      const report = await verifyBundle({ ...overruled, events }, trusted);
      expect(report.checks.find((check) => check.check === 'events')).toMatchObject({
        ok: false,
        detail: 'the events are not in sequence order (or one is there twice)',
      });
      expect(report.verified).toEqual([]);
    }
  });

  it('bundle:verify with the clock a year ahead: the same output, exit 0', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'cs-bundle-later-'));
    const [file, jwks] = [path.join(dir, 'bundle.json'), path.join(dir, 'jwks.json')];
    await fs.writeFile(file, JSON.stringify(bundle));
    await fs.writeFile(jwks, JSON.stringify({ keys: trusted }));
    const [today, later] = await Promise.all([
      runCli(['bundle:verify', file, '--keys', jwks], path.join(dir, 'none')),
      runCli(['bundle:verify', file, '--keys', jwks], path.join(dir, 'none'), { clockAheadMs: A_YEAR_MS }),
    ]);
    expect(later).toEqual(today);
    expect(later.code).toBe(0);
    expect(later.stdout).toContain('The bundle verifies.');
  });

  it('refuses what is not a bundle', async () => {
    expect(await failed({ format: 'something-else' })).toEqual(['format']);
    expect(await failed('[]')).toEqual(['format']);
  });
});
