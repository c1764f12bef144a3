import { randomBytes } from 'node:crypto';
import { startSystemsOfRecord, type SystemsOfRecord } from '@/demo/systems/server';
import { createSystemsClient, type SystemsClient } from '@/lib/systems/client';

export type DemoSystems = {
  /** The running service (test mode: faults and /__reset are available). */
  service: SystemsOfRecord;
  /** A client for the gates, as the dashboard builds it from its settings. */
  client: SystemsClient;
  credentials: { payments: string; inventory: string };
  /** Restores the seeded records (refunds, holds) and clears queued faults. */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/**
 * The demo systems of record on a free loopback port, for tests, the corpus runner and benchmarks:
 * a real HTTP service, reached only through the same client and adapters the server uses.
 */
export async function startDemoSystems(): Promise<DemoSystems> {
  const credentials = { payments: `pay_${randomBytes(18).toString('base64url')}`, inventory: `inv_${randomBytes(18).toString('base64url')}` };
  const service = await startSystemsOfRecord({ port: 0, credentials, testMode: true });
  return {
    service,
    credentials,
    client: createSystemsClient({ baseUrl: service.url, credentials }),
    async reset() {
      const response = await fetch(`${service.url}/__reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`systems of record reset failed: ${response.status}`);
    },
    close: () => service.close(),
  };
}
