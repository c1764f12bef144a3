/**
 * The executor route and the JWKS route as Next calls them: real Requests, the server's own
 * settings (SYSTEMS_OF_RECORD_URL, SCOPE_CREDENTIALS) and database handle.
 */
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '@/db/schema';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { POST as executorRoute } from '@/app/api/executor/[scope]/route';
import { decide } from '@/lib/decisions/decide';
import { startSystemsOfRecord, type SystemsOfRecord } from '@/demo/systems/server';
import { createSystemsClient } from '@/lib/systems/client';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { freePort } from '@/test/systems';
import { seedWorld } from '@/test/world';

const credentials = { payments: `pay_${randomBytes(18).toString('base64url')}`, inventory: `inv_${randomBytes(18).toString('base64url')}` };
const port = await freePort();
const saved = { url: process.env.SYSTEMS_OF_RECORD_URL, credentials: process.env.SCOPE_CREDENTIALS };
// Before anything reads the settings (they are parsed once per process).
process.env.SYSTEMS_OF_RECORD_URL = `http://127.0.0.1:${port}`;
process.env.SCOPE_CREDENTIALS = JSON.stringify(credentials);

const t = setupTestDatabase();
let service: SystemsOfRecord;
const globalForDb = globalThis as unknown as { countersignDb?: Promise<unknown> };

beforeAll(async () => {
  service = await startSystemsOfRecord({ port, credentials, testMode: true });
  globalForDb.countersignDb = Promise.resolve(t.handle);
});
afterAll(async () => {
  globalForDb.countersignDb = undefined;
  await service?.close();
  process.env.SYSTEMS_OF_RECORD_URL = saved.url;
  process.env.SCOPE_CREDENTIALS = saved.credentials;
  if (saved.url === undefined) delete process.env.SYSTEMS_OF_RECORD_URL;
  if (saved.credentials === undefined) delete process.env.SCOPE_CREDENTIALS;
});

const post = (scope: string, body: string, contentType = 'application/jose') =>
  executorRoute(new Request(`http://countersign.test/api/executor/${scope}`, { method: 'POST', headers: { 'content-type': contentType }, body }), {
    params: Promise.resolve({ scope }),
  });

describe('POST /api/executor/<scope>', () => {
  it('executes a command once and answers the recorded outcome to a replay; refusals are 4xx command errors', async () => {
    const world = await seedWorld(t.db);
    const systems = createSystemsClient({ baseUrl: service.url, credentials });
    const body = { requestId: 'req_route_1', action: 'issue_refund', contractVersion: 1, args: { orderId: 'ord_1842', amountMinor: 250, currency: 'USD', reason: 'Refund' } };
    const { proposal } = await submitAs(t.db, systems, await world.agent('acme'), body);
    await decide(t.db, systems, { userId: world.userId('alice'), proposalId: proposal.id, request: { decision: 'approve', payloadHash: proposal.payloadHash } });
    const [command] = await t.db.select().from(commands).where(eq(commands.proposalId, proposal.id));

    const wrongType = await post('payments', command!.jws, 'application/json');
    expect(wrongType.status).toBe(415);
    expect(await wrongType.json()).toMatchObject({ error: { kind: 'command', code: 'unsupported_media_type' } });
    const unknownScope = await post('deployments', command!.jws);
    expect(unknownScope.status).toBe(404);
    const forged = await post('payments', `${command!.jws.slice(0, -4)}AAAA`);
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ error: { kind: 'command', code: 'bad_signature' } });

    const first = await post('payments', command!.jws);
    expect(first.status).toBe(200);
    const answer = (await first.json()) as { execution: Record<string, unknown> };
    expect(answer.execution).toMatchObject({ status: 'succeeded', commandId: command!.id, proposalId: proposal.id, receipt: { amountMinor: 250, orderId: 'ord_1842' } });

    const replay = await post('payments', command!.jws);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual(answer);
    const order = (await (await fetch(`${service.url}/orders/ord_1842`)).json()) as { refunds: { idempotencyKey: string }[] };
    expect(order.refunds.filter((refund) => refund.idempotencyKey === `cs.${proposal.id}`)).toHaveLength(1);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('serves the public keys only: kty, crv, x, kid, alg, use — never d', async () => {
    const response = await jwksRoute();
    expect(response.status).toBe(200);
    const text = await response.text();
    const { keys } = JSON.parse(text) as { keys: Record<string, unknown>[] };
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'crv', 'kid', 'kty', 'use', 'x']);
      expect(key).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    }
    expect(text).not.toContain('"d"');
  });
});
