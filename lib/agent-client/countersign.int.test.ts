import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as jwksRoute } from '@/app/.well-known/jwks.json/route';
import { commandIssuer } from '@/lib/commands/mint';
import { REQUEST_PROOF_HEADER, signRequest } from '@/lib/signing/request-proof';
import { setupCommandWorld } from '@/test/fixtures/commands';
import { type CommandClaims, executorHandler, nodeHandler, verifyCommand } from './index';

// The helpers against Countersign itself: commands minted by a real approval, keys from the real
// /.well-known/jwks.json route, request proofs signed with the process's own command keys.
const w = setupCommandWorld();
const servers: http.Server[] = [];
const executed: CommandClaims[] = [];
let jwksUrl: string;
let executorUrl: string;

async function listen(): Promise<{ server: http.Server; base: string }> {
  const server = http.createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  const jwks = await listen();
  jwks.server.on('request', nodeHandler(jwksRoute));
  jwksUrl = `${jwks.base}/.well-known/jwks.json`;
  const executor = await listen();
  executorUrl = `${executor.base}/payments/execute`;
  const handler = executorHandler({
    jwks: jwksUrl,
    issuer: commandIssuer(),
    url: executorUrl,
    scope: 'payments',
    execute: (claims) => {
      executed.push(claims);
      return { receipt: { refundId: `rf_${executed.length}`, amountMinor: claims.args.amountMinor } };
    },
    lookup: () => undefined,
  });
  executor.server.on('request', nodeHandler(handler));
});
afterAll(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

describe('the helpers against Countersign', () => {
  it("verify a minted command against the published keys, recomputing the proposal's payload hash", async () => {
    const { proposal, command } = await w.approvedRefund(150);
    const claims = await verifyCommand(command.jws, { jwks: jwksUrl, scope: 'payments', issuer: commandIssuer() });
    expect(claims).toMatchObject({ sub: proposal.id, jti: command.id, payloadHash: proposal.payloadHash });
    await expect(verifyCommand(command.jws, { jwks: jwksUrl, scope: 'inventory' })).rejects.toMatchObject({
      code: 'wrong_audience',
    });
  });

  it('an executor built with them takes a minted command delivered with a request proof, and reconciles it', async () => {
    const { proposal, command } = await w.approvedRefund(200);
    const deliver = async () =>
      fetch(executorUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/jose',
          [REQUEST_PROOF_HEADER]: await signRequest({ url: executorUrl, method: 'POST', body: command.jws }),
        },
        body: command.jws,
      });
    const first = await deliver();
    expect([first.status, await first.json()]).toEqual([200, { receipt: { refundId: 'rf_1', amountMinor: 200 } }]);
    expect((await deliver()).status).toBe(200);
    expect(executed.map((claims) => claims.idempotencyKey)).toEqual([`cs.${proposal.id}`]);

    const url = `${executorUrl}/${command.id}`;
    const reconciled = await fetch(url, {
      headers: { [REQUEST_PROOF_HEADER]: await signRequest({ url, method: 'GET', body: '' }) },
    });
    expect([reconciled.status, await reconciled.json()]).toEqual([
      200,
      { receipt: { refundId: 'rf_1', amountMinor: 200 } },
    ]);
  });
});
