/**
 * Runs once when the server starts (not during `next build`): validates settings, migrates the
 * database, and closes it cleanly on shutdown so PGlite never needs crash recovery.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServer } = await import('./lib/server-start');
  await startServer();
}
