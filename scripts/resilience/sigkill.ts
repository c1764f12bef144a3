/**
 * SIGKILL in the middle of a burst: proposals and their approvals at a fixed concurrency; once
 * half of them are answered (and a few writes are held open by timeout faults, so executions are
 * in flight), the `next start` process is killed with SIGKILL while the systems of record keep
 * running. The server is started again on the same database; every request that got no answer is
 * sent again with the same requestId (idempotent) until it is answered.
 */
import { scaledIds } from '@/demo/systems/world';
import { within } from '@/scripts/shared/wait';
import {
  type Answer,
  type DetailAnswer,
  type Operator,
  type ProposalAnswer,
  type ProposalRequest,
  propose,
} from './http';
import type { Operation } from './outcomes';
import { pool } from './pool';
import type { IndexRange, Workload } from './runs';

export type BurstReport = {
  operations: number;
  concurrency: number;
  answeredBeforeKill: number;
  unansweredAtKill: number;
  /** Requests sent again after the restart: proposals (200 = the first had landed, 201 = it had not) and approvals. */
  retried: { proposals: Record<string, number>; approvals: Record<string, number> };
  downSeconds: number;
  lost: number;
  duplicated: number;
};

type Step = { request: ProposalRequest; proposalId?: string; payloadHash?: string; approved: boolean };

const answered = (answer: Answer): answer is Answer & { status: number } => typeof answer.status === 'number';

function requestFor(index: number, k: number, label: string): ProposalRequest {
  const ids = scaledIds(index);
  return k % 2
    ? {
        requestId: `res-${label}-${k}`,
        action: 'hold_stock',
        args: { sku: ids.sku, quantity: 1 + (k % 3) },
        evidenceRefs: [],
      }
    : {
        requestId: `res-${label}-${k}`,
        action: 'issue_refund',
        args: { orderId: ids.order, amountMinor: 500 + k, currency: 'USD', reason: 'Resilience burst' },
        evidenceRefs: [ids.evidence],
      };
}

/** One operation as far as it gets: propose, then approve (one approver suffices for these). */
async function advance(
  workload: Workload,
  operator: Operator,
  key: string,
  step: Step,
  retry?: BurstReport['retried'],
): Promise<void> {
  if (!step.proposalId) {
    const created: Answer<ProposalAnswer> = await propose(workload.tally, workload.appUrl, key, step.request);
    if (!answered(created) || !created.body?.proposal) return;
    if (retry) retry.proposals[created.status] = (retry.proposals[created.status] ?? 0) + 1;
    step.proposalId = created.body.proposal.id;
    step.payloadHash = created.body.proposal.payloadHash;
  }
  if (!step.approved) {
    const decided: Answer<DetailAnswer> = await operator.decide(step.proposalId, step.payloadHash!, 'approve');
    if (!answered(decided)) return;
    if (retry) retry.approvals[decided.status] = (retry.approvals[decided.status] ?? 0) + 1;
    // 409 already_decided: the approval sent before the kill had landed.
    step.approved = decided.status === 200 || decided.status === 409;
  }
}

export async function sigkillBurst(
  workload: Workload,
  options: {
    operations: number;
    concurrency: number;
    label: string;
    range: IndexRange;
    killServer: () => Promise<void>;
    restartServer: () => Promise<Workload>;
    holdWritesOpen: () => Promise<void>;
    progress: (text: string) => void;
  },
): Promise<{ report: BurstReport; operations: Operation[]; workload: Workload }> {
  const steps: Step[] = Array.from({ length: options.operations }, (_, k) => ({
    request: requestFor(options.range.first + k, k, options.label),
    approved: false,
  }));
  let completed = 0;
  let killing: Promise<void> | undefined;
  const killAt = Math.floor(options.operations / 2);
  let answeredBeforeKill = 0;
  let killedAt = 0;

  await options.holdWritesOpen();
  await pool(steps, options.concurrency, async (step, k) => {
    if (killing) await killing;
    await advance(workload, k % 2 ? workload.alice : workload.bob, workload.keys[k % workload.keys.length]!, step);
    completed++;
    if (completed === killAt && !killing) {
      answeredBeforeKill = steps.filter((s) => s.approved).length;
      options.progress(
        `SIGKILL of the server with ${options.operations - answeredBeforeKill} operations not fully answered`,
      );
      killedAt = Date.now();
      killing = options.killServer();
    }
  });
  await killing;
  const unansweredAtKill = steps.filter((step) => !step.approved).length;

  const restarted = await options.restartServer();
  const downSeconds = Math.round((Date.now() - killedAt) / 1000);
  options.progress(
    `server back after ${downSeconds} s; sending again what got no answer (${unansweredAtKill} operations)`,
  );
  const retried: BurstReport['retried'] = { proposals: {}, approvals: {} };
  await within(120_000, async () => {
    const open = steps.filter((step) => !step.approved);
    await pool(open, options.concurrency, (step) =>
      advance(
        restarted,
        steps.indexOf(step) % 2 ? restarted.alice : restarted.bob,
        restarted.keys[steps.indexOf(step) % restarted.keys.length]!,
        step,
        retried,
      ),
    );
    return steps.every((step) => step.approved);
  });

  const byRequest = await workload.sql<{ request_id: string; n: number }[]>`
    select request_id, count(*)::int as n from proposals
    where request_id = any(${steps.map((step) => step.request.requestId)}::text[]) group by request_id`;
  const counts = new Map(byRequest.map((row) => [row.request_id, row.n]));
  const lost = steps.filter((step) => !step.approved || (counts.get(step.request.requestId) ?? 0) === 0).length;
  const duplicated = steps.filter((step) => (counts.get(step.request.requestId) ?? 0) > 1).length;
  const operations = steps.flatMap((step) =>
    step.proposalId
      ? [
          {
            requestId: step.request.requestId,
            proposalIds: [step.proposalId],
            resource:
              step.request.action === 'issue_refund'
                ? { kind: 'order' as const, id: String(step.request.args.orderId) }
                : { kind: 'sku' as const, id: String(step.request.args.sku) },
          },
        ]
      : [],
  );
  return {
    report: {
      operations: options.operations,
      concurrency: options.concurrency,
      answeredBeforeKill,
      unansweredAtKill,
      retried,
      downSeconds,
      lost,
      duplicated,
    },
    operations,
    workload: restarted,
  };
}
