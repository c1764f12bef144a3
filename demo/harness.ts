import { randomBytes } from 'node:crypto';
import { type SystemsOfRecord, startSystemsOfRecord } from '@/demo/systems/server';
import type { Evidence } from '@/demo/systems/world';
import { forgetCachedEvidence } from '@/lib/gates/evidence';
import { createSystemsClient, type SystemsClient } from '@/lib/systems/client';

export type DemoSystems = {
  /** The running service (test mode: faults and /__reset are available). */
  service: SystemsOfRecord;
  /** A client for the gates, as the dashboard builds it from its settings. */
  client: SystemsClient;
  credentials: { payments: string; inventory: string };
  /** Adds an evidence record (`POST /__evidence`), kept until reset(). */
  addEvidence(evidence: Evidence): Promise<void>;
  /**
   * Restores the seeded records (refunds, holds), forgets added evidence and clears queued faults;
   * this process also forgets the evidence it kept, as added evidence is gone.
   */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/**
 * The demo systems of record on a free loopback port, for tests, the corpus runner and benchmarks:
 * a real HTTP service, reached only through the same client and adapters the server uses.
 */
export async function startDemoSystems(): Promise<DemoSystems> {
  const credentials = {
    payments: `pay_${randomBytes(18).toString('base64url')}`,
    inventory: `inv_${randomBytes(18).toString('base64url')}`,
  };
  const service = await startSystemsOfRecord({ port: 0, credentials, testMode: true });
  return {
    service,
    credentials,
    client: createSystemsClient({ baseUrl: service.url, credentials }),
    async addEvidence(evidence) {
      const response = await fetch(`${service.url}/__evidence`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(evidence),
      });
      if (response.status !== 201)
        throw new Error(`adding evidence failed: ${response.status} ${await response.text()}`);
    },
    async reset() {
      const response = await fetch(`${service.url}/__reset`, { method: 'POST' });
      if (!response.ok) throw new Error(`systems of record reset failed: ${response.status}`);
      forgetCachedEvidence();
    },
    close: () => service.close(),
  };
}
