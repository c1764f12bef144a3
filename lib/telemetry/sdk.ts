import { type Context, context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import {
  BatchSpanProcessor,
  type Sampler,
  SamplingDecision,
  type SamplingResult,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { markTelemetry } from './attributes';
import type { Telemetry, TelemetrySettings } from './types';

/**
 * The OpenTelemetry SDK, loaded only when telemetry is on (./start.ts imports this module
 * dynamically). The exporters speak OTLP over HTTP with JSON bodies and read the standard
 * OTEL_EXPORTER_OTLP_* variables themselves (endpoint, per-signal endpoints, headers, timeout).
 */

/**
 * Records Countersign's own spans only. Next.js opens spans for every request through the same
 * API; their URL attributes can carry query text, so they are not exported.
 */
const countersignSpansOnly: Sampler = {
  shouldSample(_context: Context, _traceId: string, name: string): SamplingResult {
    return {
      decision: name.startsWith('countersign.') ? SamplingDecision.RECORD_AND_SAMPLED : SamplingDecision.NOT_RECORD,
    };
  },
  toString: () => 'CountersignSpansOnly',
};

export function startSdk(settings: TelemetrySettings): Telemetry {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': settings.serviceName }))
    // OTEL_RESOURCE_ATTRIBUTES (deployment.environment, service.version, …); OTEL_SERVICE_NAME wins above.
    .merge(detectResources({ detectors: [envDetector] }));

  const tracerProvider = new TracerProvider({
    resource,
    sampler: countersignSpansOnly,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({
        exporter: new OTLPMetricExporter(),
        exportIntervalMillis: settings.metricExportIntervalMs,
      }),
    ],
  });

  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
  markTelemetry(true);

  return {
    async flush() {
      await Promise.all([tracerProvider.forceFlush(), meterProvider.forceFlush()]);
    },
    async shutdown() {
      markTelemetry(false);
      await Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
      propagation.disable();
      context.disable();
    },
  };
}
