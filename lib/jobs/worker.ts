import type { Database } from '@/db';
import type { Settings } from '@/lib/env';
import { dispatchCommands } from './dispatch-commands';
import { expireOverdue } from './expire-proposals';
import { reconcileExecutions } from './reconcile-executions';

/** How often each job runs (DESIGN.md §6, §7, §10). */
export const JOB_INTERVALS_MS = { expiry: 30_000, dispatch: 1_000, reconciliation: 10_000 } as const;

export type WorkerSettings = {
  /** Where `/api/executor/<scope>` answers. */
  executorBaseUrl: string;
  intervals?: Partial<Record<keyof typeof JOB_INTERVALS_MS, number>>;
  log?: (line: string) => void;
  logError?: (line: string) => void;
};

export type Worker = {
  /** Stops the timers and waits for running jobs to finish. */
  stop(): Promise<void>;
};

/** The executor base URL from the settings: APP_URL, else this machine's port. */
export function executorBaseUrl(settings: Pick<Settings, 'APP_URL' | 'PORT'>): string {
  return settings.APP_URL ?? `http://127.0.0.1:${settings.PORT}`;
}

/** A code for the log, never a message: messages may carry values from the database. */
export function errorCode(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(code)) return code;
    if (error instanceof Error) return error.name;
  }
  return typeof error;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Runs the background jobs on their intervals: expiry (30 s), command dispatch (1 s) and
 * reconciliation of unknown outcomes (10 s). Each job never overlaps itself; timers are unref'd so
 * they never keep the process alive. Any number of workers may run against one database: every
 * job claims its rows with FOR UPDATE SKIP LOCKED.
 */
export function startWorker(db: Database, settings: WorkerSettings): Worker {
  const log = settings.log ?? ((line) => console.log(line));
  const logError = settings.logError ?? ((line) => console.error(line));
  const intervals = { ...JOB_INTERVALS_MS, ...settings.intervals };
  const running = new Set<Promise<void>>();
  const timers: NodeJS.Timeout[] = [];
  let stopped = false;

  const every = (name: string, ms: number, job: () => Promise<string | undefined>) => {
    let busy = false;
    const tick = () => {
      if (busy || stopped) return;
      busy = true;
      const run = job()
        .then((line) => {
          if (line) log(`[countersign] ${line}`);
        })
        .catch((error: unknown) => logError(`[countersign] ${name} failed (${errorCode(error)})`))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    };
    const timer = setInterval(tick, ms);
    timer.unref();
    timers.push(timer);
    tick();
  };

  every('expiry sweep', intervals.expiry, async () => {
    const expired = await expireOverdue(db, new Date());
    return expired > 0 ? `expired ${plural(expired, 'overdue proposal')}` : undefined;
  });
  every('command dispatch', intervals.dispatch, async () => {
    const result = await dispatchCommands(db, { executorBaseUrl: settings.executorBaseUrl });
    if (result.claimed === 0) return undefined;
    return `dispatched ${plural(result.claimed, 'command')}: ${result.delivered} delivered, ${result.retrying} to retry, ${result.dead} dead`;
  });
  every('reconciliation', intervals.reconciliation, async () => {
    const result = await reconcileExecutions(db);
    if (result.checked === 0) return undefined;
    return `checked ${plural(result.checked, 'unknown outcome')}: ${result.succeeded} succeeded, ${result.failed} failed, ${result.pending} still unknown`;
  });

  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}
