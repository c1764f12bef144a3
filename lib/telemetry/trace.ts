import { type Context, context, propagation, ROOT_CONTEXT, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { SCOPE, type SpanFacts, spanAttributes, telemetryOn } from './attributes';

/**
 * Spans over @opentelemetry/api. With telemetry off (the default) `fn` runs as it is, with a note
 * that does nothing: one global read per call.
 */

export type SpanNote = {
  /** Adds facts learnt on the way (the proposal id once it exists, the outcome at the end). */
  note(facts: SpanFacts): void;
};

const noted = (span: Span): SpanNote => ({ note: (facts) => span.setAttributes(spanAttributes(facts)) });

const UNNOTED: SpanNote = { note: () => undefined };

/**
 * The parent for a new span: the active one when it is ours (recording) or a caller's remote one
 * (continuingTrace); otherwise none, so a span the sampler dropped (Next's own request spans) is
 * never named as a parent nobody receives.
 */
function parentContext(): Context {
  const active = trace.getActiveSpan();
  const dropped = active !== undefined && !active.isRecording() && !active.spanContext().isRemote;
  return dropped ? trace.deleteSpan(context.active()) : context.active();
}

/** Runs `fn` inside a span; a throw is recorded as an error by its name only (messages can carry values). */
export function withSpan<T>(name: string, facts: SpanFacts, fn: (span: SpanNote) => Promise<T>): Promise<T> {
  if (!telemetryOn()) return fn(UNNOTED);
  return trace
    .getTracer(SCOPE)
    .startActiveSpan(name, { attributes: spanAttributes(facts) }, parentContext(), async (span) => {
      try {
        return await fn(noted(span));
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
        throw error;
      } finally {
        span.end();
      }
    });
}

/** withSpan for synchronous work (the Shape gate). */
export function withSpanSync<T>(name: string, facts: SpanFacts, fn: (span: SpanNote) => T): T {
  if (!telemetryOn()) return fn(UNNOTED);
  return trace
    .getTracer(SCOPE)
    .startActiveSpan(name, { attributes: spanAttributes(facts) }, parentContext(), (span) => {
      try {
        return fn(noted(span));
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
        throw error;
      } finally {
        span.end();
      }
    });
}

function errorName(error: unknown): string {
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.name : 'error';
}

/** The W3C trace context of the active span, as headers for an outgoing request (none when off). */
export function traceHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!telemetryOn()) return headers;
  propagation.inject(context.active(), headers);
  return headers;
}

/** Runs `fn` as a continuation of the trace named by an incoming request's `traceparent` (dispatch → executor). */
export function continuingTrace<T>(headers: Headers, fn: () => T): T {
  if (!telemetryOn()) return fn();
  const carrier: Record<string, string> = {};
  headers.forEach((value, key) => {
    if (key === 'traceparent' || key === 'tracestate') carrier[key] = value;
  });
  if (!carrier.traceparent) return fn();
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), fn);
}
