/**
 * `npm run example:agent [-- --order ord_1843 --amount-minor 1500 --currency EUR --reason "…"]`:
 * an agent that proposes a refund through the typed client, waits for the operator's decision with
 * backoff, and prints the outcome. Needs a running Countersign (`npm run demo`):
 * COUNTERSIGN_URL (default http://localhost:3000) and COUNTERSIGN_AGENT_KEY (default: the demo's
 * acme agent key from <COUNTERSIGN_DATA_DIR or .data>/demo-credentials.json). Exit code 0 when the
 * proposal reached a final outcome, 1 when it could not be proposed or the deadline passed.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { EXAMPLE_ORDERS } from '@/demo/systems/world';
import { type CountersignError, createAgentClient } from '@/lib/agent-client';
import { exampleSettings } from './settings';

const { values } = parseArgs({
  options: {
    order: { type: 'string', default: EXAMPLE_ORDERS.agent },
    'amount-minor': { type: 'string', default: '1200' },
    currency: { type: 'string', default: 'USD' },
    reason: { type: 'string', default: 'Customer requested a partial refund for a damaged filter' },
    evidence: { type: 'string', multiple: true },
    'deadline-seconds': { type: 'string', default: '600' },
  },
});

function describe(error: CountersignError): string {
  switch (error.type) {
    case 'api':
      return (
        `${error.status} ${error.code}: ${error.message}` +
        error.issues.map((issue) => `\n  ${issue.field}: ${issue.message}`).join('')
      );
    case 'deadline':
      return `${error.message}${error.last ? ` (last status: ${error.last.status})` : ''}`;
    default:
      return error.message;
  }
}

async function main(): Promise<number> {
  const { baseUrl, agentKey } = exampleSettings();
  const client = createAgentClient({ baseUrl, agentKey });
  const requestId = `example-${randomBytes(6).toString('hex')}`;
  const args = {
    orderId: values.order,
    amountMinor: Number(values['amount-minor']),
    currency: values.currency,
    reason: values.reason,
  };
  console.log(
    `▸ Proposing issue_refund of ${args.amountMinor} minor ` +
      `units ${args.currency} on ${args.orderId} (requestId ${requestId})`,
  );
  const proposed = await client.propose({
    requestId,
    action: 'issue_refund',
    contractVersion: 1,
    args,
    evidenceRefs: values.evidence ?? [],
  });
  if (!proposed.ok) {
    console.error(`Refused: ${describe(proposed.error)}`);
    return 1;
  }
  const { proposal } = proposed.value;
  console.log(`  proposal ${proposal.id}: ${proposal.status}; review it at ${proposal.links.review}`);
  console.log(
    `▸ Waiting for the decision and the outcome (backoff 0.5 s → 10 s, deadline ${values['deadline-seconds']} s)…`,
  );
  let seen = proposal.status as string;
  const outcome = await client.waitForDecision(proposal.id, {
    until: 'final',
    deadlineMs: Number(values['deadline-seconds']) * 1000,
    onState: (state) => {
      if (state.status !== seen) console.log(`  now ${state.status}`);
      seen = state.status;
    },
  });
  if (!outcome.ok) {
    console.error(`No outcome: ${describe(outcome.error)}`);
    return 1;
  }
  const state = outcome.value;
  const decision = state.decisions.at(-1);
  const verdict = decision
    ? ` (${decision.decision === 'approve' ? 'approved' : 'rejected'}${decision.reason ? `: ${decision.reason}` : ''})`
    : '';
  console.log(`Outcome: ${state.status}${verdict}${state.statusReason ? ` — ${state.statusReason}` : ''}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('example failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
