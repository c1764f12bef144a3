/**
 * `npm run worker`: the background jobs (expiry, command dispatch, reconciliation, notifications) in their own
 * process, for deployments that run the web server with WORKER_IN_PROCESS=0. Any number of workers
 * may run against one PostgreSQL: every job claims its rows with FOR UPDATE SKIP LOCKED, so each
 * command is delivered once and each outcome settled once. Needs DATABASE_URL: the embedded PGlite
 * database belongs to one process (the web server's, which runs the jobs itself by default).
 */
import { closeDatabase, databaseHandle, migrateDatabase } from '@/lib/database';
import { env, SettingsError, telemetrySettings } from '@/lib/env';
import { executorBaseUrl, startWorker, workerSettings } from '@/lib/jobs/worker';
import { startTelemetry, stopTelemetry } from '@/lib/telemetry/start';

async function main(): Promise<void> {
  const settings = env();
  if (!settings.DATABASE_URL) {
    throw new SettingsError([
      'DATABASE_URL is missing — a separate worker needs PostgreSQL; with the embedded PGlite database the web ' +
        'server runs the jobs itself (WORKER_IN_PROCESS, on by default)',
    ]);
  }
  if (await startTelemetry(telemetrySettings(settings))) console.log('[countersign] OpenTelemetry export on');
  const handle = await databaseHandle();
  await migrateDatabase(handle);
  const baseUrl = executorBaseUrl(settings);
  const worker = startWorker(handle.db, { ...workerSettings(settings), listen: handle.listen });
  // The timers are unref'd: this keeps the process alive until a signal arrives.
  const keepAlive = setInterval(() => undefined, 60_000);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    clearInterval(keepAlive);
    console.log(`[countersign] ${signal} received, finishing running jobs`);
    worker
      .stop()
      .then(() => closeDatabase())
      .catch((error: unknown) => console.error('[countersign] error while stopping the worker', error))
      .then(() => stopTelemetry())
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  // Announced only once the handlers are in place: a supervisor may signal as soon as it reads this
  // line, and a signal that arrives before them ends the process without finishing its jobs.
  console.log(`[countersign] worker running (${handle.driver}); commands go to ${baseUrl}/api/executor/<scope>`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
