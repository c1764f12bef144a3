import { type Counter, type Histogram, type Meter, metrics } from '@opentelemetry/api';
import { METRIC, SCOPE, telemetryOn } from './attributes';

/**
 * The four instruments. The metrics API has no proxy: a meter taken before the SDK starts stays a
 * no-op, so instruments are looked up at each recording (cached per meter). Off, nothing is recorded
 * or looked up.
 */

type Instruments = { proposals: Counter; timeToDecision: Histogram; executions: Counter; deliveryFailures: Counter };

const byMeter = new WeakMap<Meter, Instruments>();

function instruments(): Instruments {
  const meter = metrics.getMeter(SCOPE);
  let found = byMeter.get(meter);
  if (!found) {
    found = {
      proposals: meter.createCounter(METRIC.proposals, {
        description: 'Proposals received, by intake outcome and action',
      }),
      timeToDecision: meter.createHistogram(METRIC.timeToDecision, {
        description: 'From proposal to the decision that ended its review, by action and decision',
        unit: 's',
        advice: { explicitBucketBoundaries: [1, 5, 15, 30, 60, 300, 900, 1800, 3600, 14_400, 43_200, 86_400, 259_200] },
      }),
      executions: meter.createCounter(METRIC.executions, {
        description: 'Execution outcomes recorded, by status and action',
      }),
      deliveryFailures: meter.createCounter(METRIC.deliveryFailures, {
        description: 'Failed notification delivery attempts, by channel kind',
      }),
    };
    byMeter.set(meter, found);
  }
  return found;
}

/**
 * `outcome`: auto_approved, pending_approval, replayed, or the refusal's category; `action` only once Shape named a
 * catalog action.
 */
export function countProposal(outcome: string, action: string | undefined): void {
  if (telemetryOn()) instruments().proposals.add(1, { outcome, action: action ?? 'unknown' });
}

export function recordTimeToDecision(seconds: number, action: string, decision: 'approved' | 'rejected'): void {
  if (telemetryOn()) instruments().timeToDecision.record(Math.max(0, seconds), { action, decision });
}

export function countExecution(status: string, action: string): void {
  if (telemetryOn()) instruments().executions.add(1, { status, action });
}

/** `kind`: the channel kind (webhook, slack, email). */
export function countDeliveryFailure(kind: string): void {
  if (telemetryOn()) instruments().deliveryFailures.add(1, { kind });
}
