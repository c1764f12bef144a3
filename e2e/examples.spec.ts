import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { EXAMPLE_ORDERS } from '@/demo/systems/world';
import { agentKey, apiSession } from './support';

// The runnable examples as a user runs them (npm scripts, real processes) against the demo, with an
// operator approving through the operator API while they wait.

type Running = { child: ChildProcessWithoutNullStreams; output: () => string; exit: Promise<number | null> };

function runExample(script: string, args: string[], baseURL: string): Running {
  const child = spawn('npm', ['run', '-s', script, '--', ...args], {
    env: { ...process.env, COUNTERSIGN_URL: baseURL, COUNTERSIGN_AGENT_KEY: agentKey('acme') },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output: () => output, exit };
}

async function approveWhenProposed(running: Running, baseURL: string): Promise<string> {
  await expect.poll(() => /proposal (prp_[A-Za-z0-9]+)/.exec(running.output())?.[1], { timeout: 45_000 }).toBeTruthy();
  const id = /proposal (prp_[A-Za-z0-9]+)/.exec(running.output())![1]!;
  const alice = await apiSession(baseURL, 'alice@acme.test');
  try {
    const proposal = (await (await alice.get(`/api/v1/proposals/${id}`)).json()) as { payloadHash: string; status: string };
    expect(proposal.status).toBe('pending_approval');
    const decided = await alice.post(`/api/v1/proposals/${id}/decisions`, { headers: { origin: baseURL }, data: { decision: 'approve', payloadHash: proposal.payloadHash } });
    expect(decided.status()).toBe(200);
  } finally {
    await alice.dispose();
  }
  return id;
}

test('npm run example:agent proposes a refund, waits with backoff, and prints the outcome once an operator approves', async ({ baseURL }) => {
  const running = runExample('example:agent', ['--order', EXAMPLE_ORDERS.agent, '--amount-minor', '1200', '--currency', 'USD', '--deadline-seconds', '90'], baseURL!);
  try {
    await approveWhenProposed(running, baseURL!);
    expect(await running.exit, running.output()).toBe(0);
    expect(running.output()).toMatch(/Outcome: succeeded \(approved\)/);
  } finally {
    running.child.kill();
  }
});

for (const [script, order, adapter] of [
  ['example:ai-sdk', EXAMPLE_ORDERS.aiSdk, 'Vercel AI SDK'],
  ['example:agents', EXAMPLE_ORDERS.agentsSdk, 'OpenAI Agents SDK'],
] as const) {
  test(`npm run ${script}: the ${adapter} adapter repairs a refused call, then the model reads the person's outcome`, async ({ baseURL }) => {
    const running = runExample(script, ['--order', order, '--amount-minor', '1200'], baseURL!);
    try {
      const id = await approveWhenProposed(running, baseURL!);
      expect(await running.exit, running.output()).toBe(0);
      const output = running.output();
      // The scripted model's first call sends the amount as "12.00"; Countersign names the field, the model repairs it.
      expect(output).toContain('"code":"contract_violation"');
      expect(output).toContain('"field":"amountMinor"');
      expect(output).toContain(`Model: The refund on ${order} ended succeeded: approved by a person. Review: ${baseURL}/proposals/${id}`);
    } finally {
      running.child.kill();
    }
  });
}
