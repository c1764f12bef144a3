import { closeDatabase, databaseHandle, migrateDatabase } from '@/lib/database';
import { env, SettingsError, serverProblems, settingsReadFromFiles, telemetrySettings } from '@/lib/env';
import { fileSettingsLine } from '@/lib/env-files';
import { stampPeerAddresses } from '@/lib/http/peer';
import { startWorker, type Worker, workerSettings } from '@/lib/jobs/worker';
import { warnIfOldNode } from '@/lib/node-version';
import { startTelemetry, stopTelemetry } from '@/lib/telemetry/start';

export async function startServer(): Promise<void> {
  warnIfOldNode();
  // First, so a refusal below is read knowing which settings a forgotten .env supplied.
  const fromFiles = fileSettingsLine(settingsReadFromFiles());
  if (fromFiles) console.warn(fromFiles);
  try {
    const problems = serverProblems(env());
    if (problems.length > 0) throw new SettingsError(problems);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  // Before any request or job: spans and metrics go to OTEL_EXPORTER_OTLP_ENDPOINT when it is set.
  if (await startTelemetry(telemetrySettings())) console.log('[countersign] OpenTelemetry export on');
  stampPeerAddresses();
  const handle = await databaseHandle();
  try {
    await migrateDatabase(handle);
  } catch (error) {
    // The message names the cause (db/connection-failure.ts); a server without its tables cannot serve.
    console.error(`[countersign] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  console.log(`[countersign] database ready (${handle.driver}, migrations applied)`);
  // Background jobs (expiry, dispatch, reconciliation, notifications, reminders, audit chaining and watch) run here
  // unless a separate `npm run worker` does (WORKER_IN_PROCESS=0); several may run at once (SKIP LOCKED).
  const settings = env();
  const worker: Worker | undefined = settings.WORKER_IN_PROCESS
    ? startWorker(handle.db, { ...workerSettings(settings), listen: handle.listen })
    : undefined;

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`[countersign] ${signal} received, closing the database`);
    (worker?.stop() ?? Promise.resolve())
      .then(() => closeDatabase())
      .catch((error: unknown) => console.error('[countersign] error while closing the database', error))
      // The last spans and metrics are exported before the process ends.
      .then(() => stopTelemetry())
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
