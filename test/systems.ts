import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { type DemoSystems, startDemoSystems } from '@/demo/harness';
import { type SystemsOfRecord, startSystemsOfRecord } from '@/demo/systems/server';
import { createSystemsClient, type SystemsClient } from '@/lib/systems/client';

export type DemoSystemsRef = {
  /** The client the gates use, reaching the running demo systems of record over HTTP. */
  readonly client: SystemsClient;
  readonly systems: DemoSystems;
  /** The seeded records again (refunds, holds), and no queued faults. */
  reset(): Promise<void>;
};

/**
 * The demo systems of record (a real HTTP service on a free loopback port, test mode) for the
 * calling test file: started in beforeAll, closed in afterAll. Read `.client` inside tests and hooks.
 */
export function setupDemoSystems(): DemoSystemsRef {
  let current: DemoSystems | undefined;
  beforeAll(async () => {
    current = await startDemoSystems();
  });
  afterAll(async () => {
    const running = current;
    current = undefined;
    await running?.close();
  });
  const ready = () => {
    if (!current) throw new Error('The demo systems of record are not running yet: use them inside tests or hooks.');
    return current;
  };
  return {
    get client() {
      return ready().client;
    },
    get systems() {
      return ready();
    },
    reset: () => ready().reset(),
  };
}

/** A loopback port that nothing listens on (bound once, then released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port was assigned');
  return address.port;
}

/** A systems client whose system of record is unreachable (connection refused). */
export async function unreachableSystemsClient(): Promise<SystemsClient> {
  const port = await freePort();
  return createSystemsClient({
    baseUrl: `http://127.0.0.1:${port}`,
    credentials: { payments: 'pay_unreachable_credential', inventory: 'inv_unreachable_credential' },
    timeoutMs: 2_000,
  });
}

/** A systems client that fails the test if anything reads through it (for paths that must stop first). */
export function untouchableSystems(): SystemsClient {
  return {
    read(path) {
      throw new Error(`The system of record was read (${path}) on a path that must not reach it.`);
    },
  };
}

export type RouteSystems = {
  readonly client: SystemsClient;
  readonly url: string;
  readonly credentials: Record<'payments' | 'inventory', string>;
};

/**
 * For tests that call route handlers as Next does: the server's own settings point at a demo
 * systems of record started for this file (SYSTEMS_OF_RECORD_URL, SCOPE_CREDENTIALS, set before
 * anything reads them — call this at module level), and `getDb()` answers the test database.
 * Everything is put back after the file.
 */
export async function setupRouteSystems(t: { readonly handle: unknown }): Promise<RouteSystems> {
  const credentials = {
    payments: `pay_${randomBytes(18).toString('base64url')}`,
    inventory: `inv_${randomBytes(18).toString('base64url')}`,
  };
  const port = await freePort();
  const saved = {
    SYSTEMS_OF_RECORD_URL: process.env.SYSTEMS_OF_RECORD_URL,
    SCOPE_CREDENTIALS: process.env.SCOPE_CREDENTIALS,
  };
  process.env.SYSTEMS_OF_RECORD_URL = `http://127.0.0.1:${port}`;
  process.env.SCOPE_CREDENTIALS = JSON.stringify(credentials);
  const globalForDb = globalThis as unknown as { countersignDb?: Promise<unknown> };
  let service: SystemsOfRecord | undefined;
  beforeAll(async () => {
    service = await startSystemsOfRecord({ port, credentials, testMode: true });
    globalForDb.countersignDb = Promise.resolve(t.handle);
  });
  afterAll(async () => {
    globalForDb.countersignDb = undefined;
    await service?.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    credentials,
    get client() {
      return createSystemsClient({ baseUrl: url, credentials });
    },
  };
}
