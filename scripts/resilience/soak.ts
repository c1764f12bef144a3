/**
 * The soak: proposals at a fixed rate (open loop: request k leaves at k / rate seconds whatever
 * the answers do), each then approved (a fraction) or rejected by one operator, so the queue stays
 * bounded as it would with people keeping up; the server's resident memory sampled throughout.
 */
import { scaledIds } from '@/demo/systems/world';
import { propose, type Tally } from './http';
import type { Operation } from './outcomes';
import { residentMb } from './processes';
import { seededRandom } from './random';
import type { IndexRange, Workload } from './runs';

export type MemorySeries = {
  intervalSeconds: number;
  warmupSeconds: number;
  /** Samples after warm-up, MB. */
  samples: number[];
  firstThirdMedianMb: number;
  lastThirdMedianMb: number;
  growthMb: number;
  growthPercent: number;
  minMb: number;
  maxMb: number;
};

export type SoakReport = {
  seconds: number;
  rate: number;
  approveFraction: number;
  sent: number;
  answered2xx: number;
  errors: number;
  /** Requests that left late because `MAX_IN_FLIGHT` were still waiting (the rate was not kept). */
  late: number;
  decisions: number;
  achievedRate: number;
  server: MemorySeries;
  demoTree: MemorySeries;
  /** The tolerance the server series is held to. */
  tolerance: { percent: number; mb: number };
  memoryOk: boolean;
  /** Whether memoryOk is a verdict: a shorter soak cannot tell growth from the heap settling after warm-up. */
  memoryGated: boolean;
  operations: Operation[];
};

const MAX_IN_FLIGHT = 64;
export const MEMORY_TOLERANCE = { percent: 15, mb: 40 };
const MEMORY_GATED_FROM_SECONDS = 120;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0
    ? NaN
    : sorted.length % 2
      ? sorted[(sorted.length - 1) / 2]!
      : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
};
const round = (value: number) => Math.round(value * 10) / 10;

function series(samples: number[], intervalSeconds: number, warmupSeconds: number): MemorySeries {
  const kept = samples.slice(Math.ceil(warmupSeconds / intervalSeconds));
  const third = Math.max(1, Math.floor(kept.length / 3));
  const first = median(kept.slice(0, third));
  const last = median(kept.slice(-third));
  return {
    intervalSeconds,
    warmupSeconds,
    samples: kept.map(round),
    firstThirdMedianMb: round(first),
    lastThirdMedianMb: round(last),
    growthMb: round(last - first),
    growthPercent: round(((last - first) / first) * 100),
    minMb: round(Math.min(...kept)),
    maxMb: round(Math.max(...kept)),
  };
}

export async function soak(
  workload: Workload,
  options: {
    seconds: number;
    rate: number;
    approveFraction: number;
    seed: number;
    range: IndexRange;
    serverPid: number;
    demoPid: number;
    tally: Tally;
    progress: (text: string) => void;
  },
): Promise<SoakReport> {
  const random = seededRandom(options.seed ^ 0x50a4);
  const intervalSeconds = Math.min(5, Math.max(1, Math.round(options.seconds / 40)));
  const warmupSeconds = Math.max(5, Math.round(options.seconds * 0.1));
  const serverSamples: number[] = [];
  const treeSamples: number[] = [];
  const sample = () => {
    serverSamples.push(residentMb(options.serverPid));
    treeSamples.push(residentMb(options.demoPid));
  };
  const sampler = setInterval(sample, intervalSeconds * 1000);
  const report = { sent: 0, answered2xx: 0, errors: 0, late: 0, decisions: 0 };
  const operations: Operation[] = [];
  const inFlight = new Set<Promise<void>>();
  const began = Date.now();
  const total = Math.round(options.seconds * options.rate);
  const tally = options.tally;

  const one = async (k: number) => {
    const ids = scaledIds(options.range.first + (k % options.range.count));
    const requestId = `res-soak-${options.seed}-${k}`;
    const created = await propose(tally, workload.appUrl, workload.keys[k % workload.keys.length]!, {
      requestId,
      action: 'hold_stock',
      args: { sku: ids.sku, quantity: 1 },
      evidenceRefs: [],
    });
    const proposal = typeof created.status === 'number' && created.status === 201 ? created.body?.proposal : undefined;
    if (!proposal) {
      report.errors++;
      return;
    }
    report.answered2xx++;
    const operator = k % 2 ? workload.alice : workload.bob;
    const decided = await operator.decide(
      proposal.id,
      proposal.payloadHash,
      random.chance(options.approveFraction) ? 'approve' : 'reject',
    );
    report.decisions++;
    if (typeof decided.status === 'number' && decided.status === 200) report.answered2xx++;
    else report.errors++;
    operations.push({ requestId, proposalIds: [proposal.id], resource: { kind: 'sku', id: ids.sku } });
  };

  try {
    sample();
    // Bounded by the clock, not the count: a server that cannot keep the rate gets fewer requests, not a longer soak.
    for (let k = 0; k < total; k++) {
      const due = began + (k / options.rate) * 1000;
      if (Date.now() > began + options.seconds * 1000) break;
      const wait = due - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight.size >= MAX_IN_FLIGHT) {
        report.late++;
        await Promise.race(inFlight);
      }
      report.sent++;
      const request = one(k).finally(() => inFlight.delete(request));
      inFlight.add(request);
      if ((k + 1) % Math.round(total / 5) === 0)
        options.progress(
          `soak: ${k + 1}/${total} sent, ${report.errors} errors, server ` +
            `RSS ${Math.round(serverSamples.at(-1) ?? 0)} MB`,
        );
    }
    await Promise.all(inFlight);
  } finally {
    clearInterval(sampler);
  }
  const elapsed = (Date.now() - began) / 1000;
  const server = series(serverSamples, intervalSeconds, warmupSeconds);
  return {
    seconds: Math.round(elapsed),
    rate: options.rate,
    approveFraction: options.approveFraction,
    ...report,
    achievedRate: round(report.sent / elapsed),
    server,
    demoTree: series(treeSamples, intervalSeconds, warmupSeconds),
    tolerance: MEMORY_TOLERANCE,
    memoryOk: server.growthMb <= MEMORY_TOLERANCE.mb || server.growthPercent <= MEMORY_TOLERANCE.percent,
    memoryGated: options.seconds >= MEMORY_GATED_FROM_SECONDS,
    operations,
  };
}
