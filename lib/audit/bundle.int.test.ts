import { generateKeyPair, exportJWK, SignJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { executeCommand } from '@/lib/commands/execute';
import { commandKeys, type PublicJwk } from '@/lib/commands/keys';
import { payloadHash } from '@/lib/payload-hash';
import { setupTestDatabase } from '@/test/db';
import { approvedCommand, writeClients } from '@/test/fixtures/jobs';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { buildEvidenceBundle } from './bundle';
import { verifyBundle, type EvidenceBundle } from './bundle-verify';

const t = setupTestDatabase();
const systems = setupDemoSystems();
const seeded = seededWorld(t);
let bundle: EvidenceBundle;
let trusted: PublicJwk[];

beforeAll(async () => {
  const now = new Date();
  const minted = await approvedCommand(
    t.db,
    systems.client,
    seeded.acme,
    seeded.world.userId('alice'),
    { requestId: 'req_bundle_1', action: 'issue_refund', contractVersion: 1, args: { orderId: 'ord_1842', amountMinor: 1500, currency: 'USD', reason: 'Damaged in transit' } },
    now,
  );
  const write = writeClients(systems.systems.service.url, systems.systems.credentials);
  const execution = await executeCommand(t.db, { scope: minted.scope, jws: minted.jws, systems: systems.client, writeClient: write(minted.scope), deadlineMs: 1_000 });
  expect(execution.status).toBe('succeeded');
  const keys = await commandKeys();
  trusted = keys.jwks;
  bundle = (await buildEvidenceBundle(t.db, 'acme', minted.proposal.id, keys))!;
});

const copy = (): EvidenceBundle => structuredClone(bundle);
const failed = async (tampered: unknown, keys: PublicJwk[] | 'bundle' = trusted) =>
  (await verifyBundle(tampered, keys === 'bundle' ? undefined : keys)).filter((check) => !check.ok).map((check) => check.check);

/** A command with the same claims, signed by a key the auditor does not trust, announced in the bundle. */
async function resignedElsewhere(original: EvidenceBundle): Promise<EvidenceBundle> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const kid = 'attacker-key';
  const jws = await new SignJWT(decodeJwt(original.command!.jws)).setProtectedHeader({ alg: 'EdDSA', typ: decodeProtectedHeader(original.command!.jws).typ, kid }).sign(privateKey);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } as PublicJwk;
  return { ...original, command: { ...original.command!, jws, kid }, keys: [...original.keys, jwk] };
}

describe('evidence bundles', () => {
  it('a real bundle verifies in every check, offline', async () => {
    const checks = await verifyBundle(JSON.parse(JSON.stringify(bundle)), trusted);
    expect(checks.map((check) => [check.check, check.ok])).toEqual([
      ['payload_hash', true],
      ['approvals_bind_hash', true],
      ['command', true],
      ['receipt', true],
      ['events', true],
      ['links', true],
      ['checkpoint', true],
    ]);
    expect(bundle.events.map((row) => row.type)).toEqual(['proposal.created', 'proposal.approved', 'command.minted', 'execution.started', 'execution.succeeded']);
    expect(JSON.stringify(bundle)).not.toMatch(/"d":/);
  });

  it.each<[string, (b: EvidenceBundle) => EvidenceBundle | Promise<EvidenceBundle>, string[]]>([
    ['the amount changed', (b) => ({ ...b, payload: { ...b.payload, args: { ...b.payload.args, amountMinor: 15000 } } }), ['payload_hash', 'receipt']],
    [
      'the amount changed and the hash recomputed',
      (b) => {
        const payload = { ...b.payload, args: { ...b.payload.args, amountMinor: 15000 } };
        return { ...b, payload, canonicalPayload: JSON.stringify(payload), payloadHash: payloadHash(payload) };
      },
      ['payload_hash', 'approvals_bind_hash', 'command', 'receipt', 'events'],
    ],
    ['an approval moved to another hash', (b) => ({ ...b, decisions: b.decisions.map((d) => ({ ...d, payloadHash: `sha256:${'0'.repeat(64)}` })) }), ['approvals_bind_hash']],
    ['the approval event rewritten to another hash', (b) => ({ ...b, events: b.events.map((e) => (e.type === 'proposal.approved' ? { ...e, payloadHash: `sha256:${'0'.repeat(64)}` } : e)) }), ['events']],
    ['the command re-signed with another key', resignedElsewhere, ['command']],
    ['the receipt swapped for another amount', (b) => ({ ...b, execution: { ...b.execution!, receipt: { ...(b.execution!.receipt as object), amountMinor: 1 } } }), ['receipt']],
    ['an event dropped from the links', (b) => ({ ...b, links: b.links.filter((_, index) => index !== 1) }), ['events', 'links']],
    ['an event’s time edited', (b) => ({ ...b, events: b.events.map((e, index) => (index === 0 ? { ...e, occurredAt: new Date(0).toISOString() } : e)) }), ['events']],
    ['the checkpoint replaced by one over another seq', (b) => ({ ...b, links: b.links.slice(0, -1), events: b.events.slice(0, -1) }), ['checkpoint']],
  ])('detects %s', async (_name, tamper, expected) => {
    expect(await failed(await tamper(copy()))).toEqual(expected);
  });

  it('a command re-signed with a key the bundle itself announces is caught only by pinned keys (why the README says to pin them)', async () => {
    const tampered = await resignedElsewhere(copy());
    expect(await failed(tampered, 'bundle')).toEqual([]);
    expect(await failed(tampered)).toEqual(['command']);
  });

  it('refuses what is not a bundle', async () => {
    expect(await failed({ format: 'something-else' })).toEqual(['format']);
    expect(await failed('[]')).toEqual(['format']);
  });
});
