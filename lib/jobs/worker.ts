import type { Database, DatabaseHandle } from '@/db/client';
import type { Settings } from '@/lib/env';
import { deliverNotifications } from '@/lib/notifications/deliver';
import { fanOutNotifications } from '@/lib/notifications/fanout';
import { sweepReminders } from '@/lib/notifications/schedule';
import { targetPolicy, type TargetPolicy } from '@/lib/notifications/outbound';
import type { MailSettings } from '@/lib/notifications/send';
import { systemsClient, type SystemsClient } from '@/lib/systems/client';
import { dispatchCommands } from './dispatch-commands';
import { expireOverdue } from './expire-proposals';
import { reconcileClaims, describeRepair } from './reconcile-claims';
import { reconcileExecutions } from './reconcile-executions';
import { recheckOpen } from './recheck-open';
import { watchAuditChains } from './watch-audit-chain';
import { raiseRubberStampAlarms } from './oversight-alarm';
import { DISPATCH_CHANNEL } from '@/lib/commands/wake';
import { jobSet, scheduleJob, stopJobs } from './schedule';
import { AUDIT_CHANNEL } from '@/lib/events/append';
import { tenantsWithPending } from '@/lib/events/chainer';
import { auditChainer } from './chain-audit';

/** How many dispatch runs may be under way at once in one worker. */
export const DISPATCH_OVERLAP = 4;

/** How often each job runs (docs/design.md §6, §7, §8, §9, §10). */
export const JOB_INTERVALS_MS = {
  expiry: 30_000,
  dispatch: 1_000,
  reconciliation: 10_000,
  notifications: 1_000,
  reminders: 30_000,
  auditWatch: 60_000,
  recheck: 5_000,
  claims: 600_000,
  auditChain: 1_000,
  oversight: 300_000,
} as const;

export type WorkerSettings = {
  /** Where `/api/executor/<scope>` answers, and where notification links point. */
  executorBaseUrl: string;
  /** How email notifications leave; without an SMTP URL email deliveries end dead (`smtp_not_configured`). */
  mail?: MailSettings;
  /** Which notification targets may be reached; without it, public addresses only. */
  targets?: TargetPolicy;
  /** Where open proposals are re-checked against live state (default: the configured systems of record). */
  systems?: SystemsClient;
  intervals?: Partial<Record<keyof typeof JOB_INTERVALS_MS, number>>;
  /**
   * The database's LISTEN (DatabaseHandle.listen): with it, a committed approval wakes dispatch at
   * once (lib/commands/wake.ts) and a committed state change has its audit event chained at once
   * (lib/events/chainer.ts); without it, or when a notification is lost, the interval finds them.
   */
  listen?: DatabaseHandle['listen'];
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

/** The worker's settings from the environment. */
export function workerSettings(settings: Pick<Settings, 'APP_URL' | 'PORT' | 'SMTP_URL' | 'SMTP_FROM' | 'NOTIFY_ALLOWED_PRIVATE_ORIGINS'>): WorkerSettings {
  return { executorBaseUrl: executorBaseUrl(settings), mail: mailSettings(settings), targets: targetPolicy(settings) };
}

export function mailSettings(settings: Pick<Settings, 'SMTP_URL' | 'SMTP_FROM'>): MailSettings {
  return { smtpUrl: settings.SMTP_URL, from: settings.SMTP_FROM };
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

const plural = (n: number, word: string) => `${n} ${n === 1 ? word : word.replace(/y$/, 'ie')}${n === 1 ? '' : 's'}`;

/**
 * Runs the background jobs on their intervals: expiry (30 s), command dispatch (1 s),
 * reconciliation of unknown outcomes (10 s), notification fan-out and delivery (1 s), reminders
 * and escalations (30 s), the audit-chain watch (60 s) and the re-check of open proposals against
 * live state (5 s), the reconciliation of claims rows (10 min), the rubber-stamp alarm (5 min) and the chaining of pending audit
 * events (1 s); when `listen` is given, a committed approval wakes dispatch at once and a committed
 * state change has its tenant's events chained at once. No job overlaps itself, except dispatch
 * (up to DISPATCH_OVERLAP runs, so a wake need not wait for a run held by a slow executor); timers are unref'd so they never keep the process alive. Any number of
 * workers may run against one database: every job claims its rows with FOR UPDATE SKIP LOCKED, and
 * chainers take turns on the tenant's chain head.
 */
export function startWorker(db: Database, settings: WorkerSettings): Worker {
  const log = settings.log ?? ((line) => console.log(line));
  const logError = settings.logError ?? ((line) => console.error(line));
  const intervals = { ...JOB_INTERVALS_MS, ...settings.intervals };
  const jobs = jobSet();

  const every = (name: string, ms: number, job: () => Promise<string | undefined>, overlap = 1) =>
    scheduleJob(jobs, { ms, overlap }, () =>
      job()
        .then((line) => {
          if (line) log(`[countersign] ${line}`);
        })
        .catch((error: unknown) => logError(`[countersign] ${name} failed (${errorCode(error)})`)),
    );

  every('expiry sweep', intervals.expiry, async () => {
    const expired = await expireOverdue(db, new Date());
    return expired > 0 ? `expired ${plural(expired, 'overdue proposal')}` : undefined;
  });
  // Up to DISPATCH_OVERLAP runs at once: an approval's wake claims its command while earlier runs
  // still wait on slow executors (each command is claimed by one run: FOR UPDATE SKIP LOCKED).
  const dispatchNow = every(
    'command dispatch',
    intervals.dispatch,
    async () => {
      const result = await dispatchCommands(db, { executorBaseUrl: settings.executorBaseUrl });
      if (result.claimed === 0) return undefined;
      return `dispatched ${plural(result.claimed, 'command')}: ${result.delivered} delivered, ${result.retrying} to retry, ${result.dead} dead`;
    },
    DISPATCH_OVERLAP,
  );
  every('reconciliation', intervals.reconciliation, async () => {
    const result = await reconcileExecutions(db);
    if (result.checked === 0) return undefined;
    return `checked ${plural(result.checked, 'unknown outcome')}: ${result.succeeded} succeeded, ${result.failed} failed, ${result.pending} still unknown`;
  });

  const mail = settings.mail ?? { from: 'Countersign <countersign@localhost>' };
  const targets = settings.targets ?? { allowedPrivateOrigins: [] };
  every('notification delivery', intervals.notifications, async () => {
    const fanned = await fanOutNotifications(db, { baseUrl: settings.executorBaseUrl });
    const sent = await deliverNotifications(db, { mail, targets });
    if (fanned.events === 0 && sent.claimed === 0) return undefined;
    return `notifications: ${plural(fanned.deliveries, 'delivery')} from ${plural(fanned.events, 'event')}; sent ${sent.delivered}, ${sent.retrying} to retry, ${sent.dead} dead, ${sent.held} held for a digest`;
  });
  every('reminders', intervals.reminders, async () => {
    const result = await sweepReminders(db, new Date());
    if (result.reminded + result.escalated === 0) return undefined;
    return `wrote ${plural(result.reminded, 'reminder')} and ${plural(result.escalated, 'escalation')}`;
  });
  every('re-check of open proposals', intervals.recheck, async () => {
    const result = await recheckOpen(db, settings.systems ?? systemsClient());
    return result.stale + result.drifted > 0 ? `re-checked ${plural(result.checked, 'open proposal')}: ${result.stale} stale, ${result.drifted} changed since proposed` : undefined;
  });
  every('claims reconciliation', intervals.claims, async () => {
    const repairs = await reconcileClaims(db);
    for (const repair of repairs) logError(`[countersign] ${describeRepair(repair)}`);
    return repairs.length > 0 ? `repaired ${plural(repairs.length, 'claims row')}` : undefined;
  });
  every('audit watch', intervals.auditWatch, async () => {
    const result = await watchAuditChains(db, new Date());
    return result.broken.length > 0 ? `audit chain broken in ${result.broken.join(', ')}` : undefined;
  });

  every('rubber-stamp alarm', intervals.oversight, async () => {
    const { raised } = await raiseRubberStampAlarms(db, new Date());
    return raised > 0 ? `raised ${plural(raised, 'rubber-stamp alarm')}` : undefined;
  });

  // Woken per tenant by the NOTIFY each recorded event sends at commit; the sweep finds what a lost
  // notification (or a process that ended between commit and chaining) left behind.
  const chainer = auditChainer(db, (error) => logError(`[countersign] audit chaining failed (${errorCode(error)})`));
  every('audit chaining', intervals.auditChain, async () => {
    for (const tenantId of await tenantsWithPending(db)) chainer.wake(tenantId);
    await chainer.idle();
    return undefined;
  });

  const unlisten = settings.listen?.(DISPATCH_CHANNEL, dispatchNow).catch((error: unknown) => {
    logError(`[countersign] listening for approvals failed (${errorCode(error)}); dispatch runs on its interval only`);
    return undefined;
  });
  const unlistenAudit = settings.listen?.(AUDIT_CHANNEL, (tenantId) => {
    if (!jobs.stopped) chainer.wake(tenantId);
  }).catch((error: unknown) => {
    logError(`[countersign] listening for audit events failed (${errorCode(error)}); they are chained on the interval only`);
    return undefined;
  });

  return {
    async stop() {
      await stopJobs(jobs, [unlisten?.then((stop) => stop?.()), unlistenAudit?.then((stop) => stop?.())].filter((stopping) => stopping !== undefined));
      await chainer.idle();
    },
  };
}
