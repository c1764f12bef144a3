import type { Database, DatabaseHandle } from '@/db/client';
import { DISPATCH_CHANNEL } from '@/lib/commands/wake';
import type { Settings } from '@/lib/env';
import { AUDIT_CHANNEL } from '@/lib/events/append';
import { tenantsWithPending } from '@/lib/events/chainer';
import { DELIVERY_BATCH, deliverNotifications } from '@/lib/notifications/deliver';
import { FAN_OUT_BATCH, fanOutNotifications } from '@/lib/notifications/fanout';
import { type TargetPolicy, targetPolicy } from '@/lib/notifications/outbound';
import { sweepReminders } from '@/lib/notifications/schedule';
import type { MailSettings } from '@/lib/notifications/send';
import { type SystemsClient, systemsClient } from '@/lib/systems/client';
import { type AuditChainer, auditChainer } from './chain-audit';
import { DISPATCH_BATCH, dispatchCommands } from './dispatch-commands';
import { expireOverdue } from './expire-proposals';
import { raiseRubberStampAlarms } from './oversight-alarm';
import { recheckOpen } from './recheck-open';
import { describeRepair, reconcileClaims } from './reconcile-claims';
import { reconcileExecutions } from './reconcile-executions';
import { type Clock, jobSet, scheduleJob, stopJobs } from './schedule';
import { watchAuditChains } from './watch-audit-chain';

/** How many dispatch runs may be under way at once in one worker. */
export const DISPATCH_OVERLAP = 4;

/**
 * How often each job runs (docs/design.md §6, §7, §8, §9, §10). Dispatch, notifications and audit
 * chaining are woken by a NOTIFY at commit (`wokenBy`); their interval is only the backstop that
 * finds what a lost notification, a retry's backoff or a process that ended left behind, so an idle
 * worker costs the database almost nothing (lib/jobs/idle.postgres.int.test.ts counts it).
 */
export const JOB_INTERVALS_MS = {
  expiry: 30_000,
  dispatch: 15_000,
  reconciliation: 20_000,
  notifications: 30_000,
  reminders: 60_000,
  auditWatch: 60_000,
  recheck: 10_000,
  claims: 600_000,
  auditChain: 30_000,
  oversight: 300_000,
} as const;

export type JobName = keyof typeof JOB_INTERVALS_MS;

/** One background job: what it is called, how often it runs, which channel's notifications run it now, and the run. */
export type Job = {
  name: JobName;
  everyMs: number;
  wokenBy?: string;
  /** What a notification does instead of running the job now (audit chaining chains the named tenant). */
  onWake?: (payload: string) => void;
  /** How many runs may be under way at once (default 1: it never overlaps itself). */
  overlap?: number;
  /** What the run did: a line for the log when it did something, and whether more is due now. */
  run: () => Promise<JobRun>;
};

/**
 * `more`: the run took a full batch, so more may be due already; the job runs again as soon as it
 * ends rather than at its next wake or backstop (a backlog drains at the speed of its batches).
 */
export type JobRun = { line?: string; more?: boolean };

export type WorkerSettings = {
  /** Where `/api/executor/<scope>` answers, and where notification links point. */
  executorBaseUrl: string;
  /** How email notifications leave; without an SMTP URL email deliveries end dead (`smtp_not_configured`). */
  mail?: MailSettings;
  /** Which notification targets may be reached; without it, public addresses only. */
  targets?: TargetPolicy;
  /** Where open proposals are re-checked against live state (default: the configured systems of record). */
  systems?: SystemsClient;
  intervals?: Partial<Record<JobName, number>>;
  /** What calls the jobs on their intervals: real timers, or a test's clock (test/manual-clock.ts). */
  clock?: Clock;
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
  /** Answers once the runs under way (and the chaining they started) have ended. */
  settled(): Promise<void>;
};

/** The executor base URL from the settings: APP_URL, else this machine's port. */
export function executorBaseUrl(settings: Pick<Settings, 'APP_URL' | 'PORT'>): string {
  return settings.APP_URL ?? `http://127.0.0.1:${settings.PORT}`;
}

/** The worker's settings from the environment. */
export function workerSettings(
  settings: Pick<Settings, 'APP_URL' | 'PORT' | 'SMTP_URL' | 'SMTP_FROM' | 'NOTIFY_ALLOWED_PRIVATE_ORIGINS'>,
): WorkerSettings {
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

/** The worker's jobs, as data: the one list `startWorker` schedules and listens for. */
export function workerJobs(
  db: Database,
  settings: WorkerSettings,
  chainer: AuditChainer,
  logError: (line: string) => void,
): Job[] {
  const intervals = { ...JOB_INTERVALS_MS, ...settings.intervals };
  const mail = settings.mail ?? { from: 'Countersign <countersign@localhost>' };
  const targets = settings.targets ?? { allowedPrivateOrigins: [] };
  return [
    {
      name: 'expiry',
      everyMs: intervals.expiry,
      run: async () => {
        const expired = await expireOverdue(db, new Date());
        return { line: expired > 0 ? `expired ${plural(expired, 'overdue proposal')}` : undefined };
      },
    },
    {
      // Up to DISPATCH_OVERLAP runs at once: an approval's wake claims its command while earlier runs
      // still wait on slow executors (each command is claimed by one run: FOR UPDATE SKIP LOCKED).
      name: 'dispatch',
      everyMs: intervals.dispatch,
      wokenBy: DISPATCH_CHANNEL,
      overlap: DISPATCH_OVERLAP,
      run: async () => {
        const result = await dispatchCommands(db, { executorBaseUrl: settings.executorBaseUrl });
        if (result.claimed === 0) return {};
        return {
          line:
            `dispatched ${plural(result.claimed, 'command')}: ${result.delivered} delivered, ` +
            `${result.retrying} to retry, ${result.dead} dead`,
          more: result.claimed >= DISPATCH_BATCH,
        };
      },
    },
    {
      name: 'reconciliation',
      everyMs: intervals.reconciliation,
      run: async () => {
        const result = await reconcileExecutions(db);
        if (result.checked === 0) return {};
        return {
          line:
            `checked ${plural(result.checked, 'unknown outcome')}: ${result.succeeded} succeeded, ` +
            `${result.failed} failed, ${result.pending} still unknown`,
        };
      },
    },
    {
      // Every outbox row is written with an audit event, whose NOTIFY wakes fan-out at commit.
      name: 'notifications',
      everyMs: intervals.notifications,
      wokenBy: AUDIT_CHANNEL,
      run: async () => {
        const fanned = await fanOutNotifications(db, { baseUrl: settings.executorBaseUrl });
        const sent = await deliverNotifications(db, { mail, targets });
        if (fanned.events === 0 && sent.claimed === 0) return {};
        return {
          line:
            `notifications: ${plural(fanned.deliveries, 'delivery')} from ${plural(fanned.events, 'event')}; ` +
            `sent ${sent.delivered}, ${sent.retrying} to retry, ${sent.dead} dead, ${sent.held} held for a ` +
            `digest`,
          more: fanned.events >= FAN_OUT_BATCH || sent.claimed >= DELIVERY_BATCH,
        };
      },
    },
    {
      name: 'reminders',
      everyMs: intervals.reminders,
      run: async () => {
        const result = await sweepReminders(db, new Date());
        if (result.reminded + result.escalated === 0) return {};
        return { line: `wrote ${plural(result.reminded, 'reminder')} and ${plural(result.escalated, 'escalation')}` };
      },
    },
    {
      name: 'recheck',
      everyMs: intervals.recheck,
      run: async () => {
        const result = await recheckOpen(db, settings.systems ?? systemsClient());
        return {
          line:
            result.stale + result.drifted > 0
              ? `re-checked ${plural(result.checked, 'open proposal')}: ${result.stale} stale, ` +
                `${result.drifted} changed since proposed`
              : undefined,
        };
      },
    },
    {
      name: 'claims',
      everyMs: intervals.claims,
      run: async () => {
        const repairs = await reconcileClaims(db);
        for (const repair of repairs) logError(`[countersign] ${describeRepair(repair)}`);
        return { line: repairs.length > 0 ? `repaired ${plural(repairs.length, 'claims row')}` : undefined };
      },
    },
    {
      name: 'auditWatch',
      everyMs: intervals.auditWatch,
      run: async () => {
        const result = await watchAuditChains(db, new Date());
        return { line: result.broken.length > 0 ? `audit chain broken in ${result.broken.join(', ')}` : undefined };
      },
    },
    {
      name: 'oversight',
      everyMs: intervals.oversight,
      run: async () => {
        const { raised } = await raiseRubberStampAlarms(db, new Date());
        return { line: raised > 0 ? `raised ${plural(raised, 'rubber-stamp alarm')}` : undefined };
      },
    },
    {
      // Woken per tenant by the NOTIFY each recorded event sends at commit; the sweep finds what a lost
      // notification (or a process that ended between commit and chaining) left behind.
      name: 'auditChain',
      everyMs: intervals.auditChain,
      wokenBy: AUDIT_CHANNEL,
      onWake: (tenantId) => chainer.wake(tenantId),
      run: async () => {
        for (const tenantId of await tenantsWithPending(db)) chainer.wake(tenantId);
        await chainer.idle();
        return {};
      },
    },
  ];
}

/**
 * Runs the background jobs (`workerJobs`) on their intervals; when `listen` is given, a job's
 * channel wakes it at once: a committed approval wakes dispatch, a committed state change has its
 * tenant's events chained and its notifications fanned out. No job overlaps itself, except dispatch
 * (up to DISPATCH_OVERLAP runs, so a wake need not wait for a run held by a slow executor). Any number of
 * workers may run against one database: every job claims its rows with FOR UPDATE SKIP LOCKED, and
 * chainers take turns on the tenant's chain head.
 */
export function startWorker(db: Database, settings: WorkerSettings): Worker {
  const log = settings.log ?? ((line) => console.log(line));
  const logError = settings.logError ?? ((line) => console.error(line));
  const jobs = jobSet(settings.clock);
  const chainer = auditChainer(db, (error) => logError(`[countersign] audit chaining failed (${errorCode(error)})`));

  const woken = new Map<string, ((payload: string) => void)[]>();
  for (const job of workerJobs(db, settings, chainer, logError)) {
    const wake = scheduleJob(jobs, { ms: job.everyMs, overlap: job.overlap }, () =>
      job
        .run()
        .then(({ line, more = false }) => {
          if (line) log(`[countersign] ${line}`);
          return more;
        })
        .catch((error: unknown) => {
          logError(`[countersign] ${job.name} failed (${errorCode(error)})`);
          return false;
        }),
    );
    if (job.wokenBy) woken.set(job.wokenBy, [...(woken.get(job.wokenBy) ?? []), job.onWake ?? wake]);
  }

  // One LISTEN per channel, waking every job it names; without one, each job runs on its interval.
  const listening = [...woken].map(([channel, wakes]) =>
    settings
      .listen?.(channel, (payload) => {
        if (!jobs.stopped) for (const wake of wakes) wake(payload);
      })
      .catch((error: unknown) => {
        logError(
          `[countersign] listening on ${channel} failed (${errorCode(error)}); its jobs run on their intervals only`,
        );
        return undefined;
      }),
  );

  return {
    async stop() {
      await stopJobs(
        jobs,
        listening.flatMap((listened) => (listened ? [listened.then((unlisten) => unlisten?.())] : [])),
      );
      await chainer.idle();
    },
    async settled() {
      while (jobs.running.size > 0) await Promise.allSettled(jobs.running);
      await chainer.idle();
    },
  };
}
