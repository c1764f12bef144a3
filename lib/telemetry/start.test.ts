import { metrics, propagation, trace } from '@opentelemetry/api';
import { describe, expect, it, vi } from 'vitest';
import { telemetryOn } from './attributes';
import { countDeliveryFailure, countExecution, countProposal, recordTimeToDecision } from './metrics';
import { startTelemetry } from './start';
import { traceHeaders, withSpan, withSpanSync } from './trace';

// Counts how often the SDK module is loaded: its factory runs only when something imports it.
const sdk = vi.hoisted(() => ({ loads: 0, starts: 0 }));
vi.mock('./sdk', () => {
  sdk.loads += 1;
  return { startSdk: () => ((sdk.starts += 1), { flush: async () => {}, shutdown: async () => {} }) };
});

const off = { endpoint: undefined, disabled: false, serviceName: 'countersign', metricExportIntervalMs: 60_000 };

describe('telemetry when OTEL_EXPORTER_OTLP_ENDPOINT is unset (the default)', () => {
  it('starts nothing and never loads the SDK; spans and instruments are the API no-ops', async () => {
    expect(await startTelemetry(off)).toBeUndefined();
    expect(await startTelemetry({ ...off, endpoint: 'http://127.0.0.1:4318', disabled: true })).toBeUndefined();

    const seen = await withSpan('countersign.intake', { tenantId: 'acme' }, async (span) => {
      span.note({ outcome: 'auto_approved' });
      return trace.getActiveSpan();
    });
    expect(seen?.isRecording() ?? false).toBe(false);
    expect(withSpanSync('countersign.gate.shape', {}, () => 'ran')).toBe('ran');
    await expect(withSpan('countersign.decision', {}, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(traceHeaders()).toEqual({});
    countProposal('auto_approved', 'hold_stock');
    recordTimeToDecision(12, 'hold_stock', 'approved');
    countExecution('succeeded', 'hold_stock');
    countDeliveryFailure('webhook');

    // No provider, propagator or context manager was registered.
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    expect(metrics.getMeterProvider().constructor.name).toBe('NoopMeterProvider');
    expect(propagation.fields()).toEqual([]);
    expect(telemetryOn()).toBe(false);
    expect(sdk).toEqual({ loads: 0, starts: 0 });
  });

  it('with an endpoint, loads and starts the SDK once however often it is asked', async () => {
    const on = { ...off, endpoint: 'http://127.0.0.1:4318' };
    const [first, second] = await Promise.all([startTelemetry(on), startTelemetry(on)]);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(sdk).toEqual({ loads: 1, starts: 1 });
  });
});
