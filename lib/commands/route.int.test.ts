/**
 * The executor route and the JWKS route as Next calls them: real Requests, the server's own
 * settings (SYSTEMS_OF_RECORD_URL, SCOPE_CREDENTIALS) and database handle.
 */
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { POST as executorRoute } from '@/app/api/executor/[scope]/route';
import { commands } from '@/db/schema';
import { decide } from '@/lib/decisions/decide';
import { setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupRouteSystems } from '@/test/systems';
import { seedWorld } from '@/test/world';

const t = setupTestDatabase();
const service = await setupRouteSystems(t);

const post = (scope: string, body: string, contentType = 'application/jose') =>
  executorRoute(
    new Request(`http://countersign.test/api/executor/${scope}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    }),
    {
      params: Promise.resolve({ scope }),
    },
  );

describe('POST /api/executor/<scope>', () => {
  it('executes a command once and answers the recorded outcome to a replay; refusals are 4xx command errors', async () => {
    const world = await seedWorld(t.db);
    const systems = service.client;
    const body = {
      requestId: 'req_route_1',
      action: 'issue_refund',
      contractVersion: 1,
      args: { orderId: 'ord_1842', amountMinor: 250, currency: 'USD', reason: 'Refund' },
    };
    const { proposal } = await submitAs(t.db, systems, await world.agent('acme'), body);
    await decide(t.db, systems, {
      userId: world.userId('alice'),
      proposalId: proposal.id,
      request: { decision: 'approve', payloadHash: proposal.payloadHash },
    });
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
    expect(answer.execution).toMatchObject({
      status: 'succeeded',
      commandId: command!.id,
      proposalId: proposal.id,
      receipt: { amountMinor: 250, orderId: 'ord_1842' },
    });

    const replay = await post('payments', command!.jws);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual(answer);
    const order = (await (await fetch(`${service.url}/orders/ord_1842`)).json()) as {
      refunds: { idempotencyKey: string }[];
    };
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
