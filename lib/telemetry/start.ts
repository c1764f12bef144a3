/**
 * Starts OpenTelemetry when OTEL_EXPORTER_OTLP_ENDPOINT is set, and only then loads the SDK (a
 * dynamic import: with telemetry off no SDK module is read, and the spans and instruments of
 * ./trace.ts and ./metrics.ts are the API's no-ops). Called by the web server and by `npm run worker`.
 */

import type { Telemetry, TelemetrySettings } from './types';

export type { Telemetry, TelemetrySettings };

let running: Promise<Telemetry> | undefined;

/** Starts the SDK once per process; undefined when telemetry is off. */
export async function startTelemetry(settings: TelemetrySettings): Promise<Telemetry | undefined> {
  if (!settings.endpoint || settings.disabled) return undefined;
  running ??= import('./sdk').then(({ startSdk }) => startSdk(settings));
  return running;
}

/** Flushes what is buffered and stops the SDK; nothing when it never started. */
export async function stopTelemetry(): Promise<void> {
  const started = running;
  running = undefined;
  await (await started)?.shutdown();
}
