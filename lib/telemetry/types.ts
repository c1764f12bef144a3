/** What starting telemetry takes and gives (lib/telemetry/start.ts and ./sdk.ts). */

export type TelemetrySettings = {
  /** OTEL_EXPORTER_OTLP_ENDPOINT; unset leaves telemetry off. */
  endpoint: string | undefined;
  /** OTEL_SDK_DISABLED: off even with an endpoint. */
  disabled: boolean;
  serviceName: string;
  metricExportIntervalMs: number;
};

export type Telemetry = {
  /** Exports every finished span and the current metrics now. */
  flush(): Promise<void>;
  /** Flushes, then stops the SDK and unregisters it. */
  shutdown(): Promise<void>;
};
