import { closeDatabase, databaseHandle, getDb } from '@/db';
import { env, serverProblems, SettingsError } from '@/lib/env';
import { expireOverdue } from '@/lib/jobs/expire-proposals';

/** How often overdue pending proposals are moved to `expired` (DESIGN.md §6). */
const EXPIRY_SWEEP_MS = 30_000;

/** A code for the log, never a message: messages may carry values from the database. */
function errorCode(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,40}$/.test(code)) return code;
    if (error instanceof Error) return error.name;
  }
  return typeof error;
}

/** Sweeps every EXPIRY_SWEEP_MS, never overlapping itself; the timer never keeps the process alive. */
function startExpirySweep(): () => void {
  let running = false;
  const sweep = async () => {
    if (running) return;
    running = true;
    try {
      const expired = await expireOverdue(await getDb(), new Date());
      if (expired > 0) console.log(`[countersign] expired ${expired} overdue proposal${expired === 1 ? '' : 's'}`);
    } catch (error) {
      console.error(`[countersign] expiry sweep failed (${errorCode(error)})`);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void sweep(), EXPIRY_SWEEP_MS);
  timer.unref();
  void sweep();
  return () => clearInterval(timer);
}

export async function startServer(): Promise<void> {
  try {
    const problems = serverProblems(env());
    if (problems.length > 0) throw new SettingsError(problems);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
  const handle = await databaseHandle();
  await handle.migrate();
  console.log(`[countersign] database ready (${handle.driver}, migrations applied)`);
  const stopSweep = startExpirySweep();

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    stopSweep();
    console.log(`[countersign] ${signal} received, closing the database`);
    closeDatabase()
      .catch((error: unknown) => console.error('[countersign] error while closing the database', error))
      .finally(() => process.exit(0));
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}
