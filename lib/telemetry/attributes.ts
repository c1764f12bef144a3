/**
 * Every name Countersign gives OpenTelemetry, in one place (docs/observability.md lists them).
 * Spans and metrics carry identifiers and fixed vocabulary only: never an argument value, evidence
 * text, a reason or an address. Callers pass `SpanFacts`, so nothing else can become an attribute.
 */

export const ATTRIBUTE = {
  tenantId: 'countersign.tenant_id',
  proposalId: 'countersign.proposal_id',
  action: 'countersign.action',
  outcome: 'countersign.outcome',
} as const;

/** What a span may say: ids, the catalog action name, and an outcome from a fixed vocabulary. */
export type SpanFacts = Partial<Record<keyof typeof ATTRIBUTE, string>>;

export const SPAN = {
  intake: 'countersign.intake',
  /**
   * One child of the intake span per gate: `countersign.gate.shape`, `.meaning`, `.authority`, `.rules`, `.routing`.
   */
  gate: (id: string) => `countersign.gate.${id}`,
  decision: 'countersign.decision',
  dispatch: 'countersign.dispatch',
  execution: 'countersign.execution',
  notificationDelivery: 'countersign.notification.delivery',
} as const;

export const METRIC = {
  proposals: 'countersign.proposals',
  timeToDecision: 'countersign.time_to_decision',
  executions: 'countersign.executions',
  deliveryFailures: 'countersign.notification.delivery_failures',
} as const;

/** The instrumentation scope of every tracer and meter. */
export const SCOPE = 'countersign';

export function spanAttributes(facts: SpanFacts): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const key of Object.keys(facts) as (keyof SpanFacts)[]) {
    const value = facts[key];
    if (value !== undefined) attributes[ATTRIBUTE[key]] = value;
  }
  return attributes;
}

const ON = Symbol.for('countersign.telemetry.on');

/**
 * Whether the SDK is running in this process. A global, not module state: Next bundles lib/ into
 * several chunks, each with its own copy of this module. Off, every span and metric call returns
 * after this one read, before the OpenTelemetry API is asked for anything.
 */
export const telemetryOn = (): boolean => (globalThis as Record<symbol, unknown>)[ON] === true;

export function markTelemetry(on: boolean): void {
  (globalThis as Record<symbol, unknown>)[ON] = on;
}
