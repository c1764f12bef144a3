/**
 * A replica of the agent API's authentication in a process of its own, for the tests of the read
 * cache across processes (lib/agents/revocation.postgres.int.test.ts): the real authenticateAgent
 * on its own database handle, with its own read cache and listener, behind a tiny HTTP endpoint.
 *
 *   DATABASE_URL=… CACHE_MAX_AGE_MS=… node --import tsx test/cache-replica.ts
 *
 * Prints `listening <port>` once it serves. `GET /auth` with the agent's Authorization header
 * answers 200 `{keyId, stats}` or 401 `{stats}`; `GET /stats` answers the cache's stats.
 */
import { createServer } from 'node:http';
import { openDatabase } from '@/db/client';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { attachReadCache } from '@/lib/cache/read-cache';

async function main() {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('test/cache-replica.ts needs DATABASE_URL.');
  const handle = await openDatabase({ url });
  const { cache, stop } = attachReadCache(handle.db, handle.listen, {
    maxAgeMs: Number(process.env.CACHE_MAX_AGE_MS ?? 3_600_000),
  });

  const server = createServer((incoming, outgoing) => {
    const answer = (status: number, body: unknown) =>
      outgoing.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (incoming.url === '/stats') return answer(200, cache.stats());
    if (incoming.url !== '/auth') return answer(404, {});
    const request = new Request('http://replica.test/auth', {
      headers: { authorization: incoming.headers.authorization ?? '' },
    });
    authenticateAgent(handle.db, request).then(
      (agent) => answer(agent ? 200 : 401, { keyId: agent?.keyId ?? null, stats: cache.stats() }),
      () => answer(500, {}),
    );
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
  });

  process.on('SIGTERM', () => {
    server.close();
    void stop()
      .then(() => handle.close())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
