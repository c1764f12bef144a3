/**
 * Runs once when the server starts (not during `next build`): validates settings, starts the
 * OpenTelemetry export when OTEL_EXPORTER_OTLP_ENDPOINT is set (lib/telemetry/start.ts), migrates
 * the database, and closes both cleanly on shutdown so PGlite never needs crash recovery.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { startServer } = await import('./lib/server-start');
  await startServer();
}
