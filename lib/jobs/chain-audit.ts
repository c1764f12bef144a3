import type { Database } from '@/db';
import { extendTree } from '@/lib/audit/tlog/store';
import { chainPending } from '@/lib/events/chainer';

/** Tenants one process chains at once: the rest wait their turn, so chaining never holds the whole connection pool. */
const PARALLEL_TENANTS = 2;

/** Tenant ids are short; a longer notification payload was not sent by appendAudit and is ignored. */
const MAX_TENANT_ID = 64;

export type AuditChainer = {
  /**
   * Chains the tenant's pending events now, or right after its run in progress, and adds them to
   * its Merkle tree: every wake during a run (a burst of commits) comes to one more run, which sees
   * all of them.
   */
  wake(tenantId: string): void;
  /** Resolves once no run is in progress or due. */
  idle(): Promise<void>;
};

/** The worker's chainer, woken by `countersign_audit` notifications and by its sweep (lib/jobs/worker.ts). */
export function auditChainer(db: Database, onError: (error: unknown) => void): AuditChainer {
  const due = new Set<string>();
  const running = new Set<string>();
  let waiters: (() => void)[] = [];

  const next = () => {
    for (const tenantId of due) {
      if (running.size >= PARALLEL_TENANTS) break;
      if (running.has(tenantId)) continue;
      due.delete(tenantId);
      running.add(tenantId);
      // The tree grows with the chain, so a checkpoint or a proof asked for later extends nothing
      // (or little): on a large log, a first extension at request time would read every event.
      void chainPending(db, tenantId)
        .then(() => extendTree(db, tenantId))
        .catch(onError)
        .finally(() => {
          running.delete(tenantId);
          next();
        });
    }
    if (running.size === 0 && due.size === 0) {
      const resolved = waiters;
      waiters = [];
      for (const resolve of resolved) resolve();
    }
  };

  return {
    wake(tenantId) {
      if (tenantId.length === 0 || tenantId.length > MAX_TENANT_ID) return;
      due.add(tenantId);
      next();
    },
    idle() {
      if (running.size === 0 && due.size === 0) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
