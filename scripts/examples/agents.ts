/**
 * `npm run example:agents [-- --order ord_1842 --amount-minor 500]`: the OpenAI Agents SDK with
 * its approval hook delegated to Countersign (lib/adapters/openai-agents.ts). A scripted stand-in
 * plays the model (no model, no API key): it calls issue_refund with a mistake, repairs it from
 * Countersign's refusal, and reports the outcome once an operator decided and the executor ran.
 * Needs a running Countersign, as `npm run example:agent` does.
 */
import { parseArgs } from 'node:util';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { EXAMPLE_ORDERS } from '@/demo/systems/world';
import { countersignAgentTools } from '@/lib/adapters/openai-agents';
import type { ToolOutcome } from '@/lib/adapters/propose-and-wait';
import { createAgentClient } from '@/lib/agent-client';
import { type Move, refundScript } from './scripted-model';
import { exampleSettings } from './settings';

const { values } = parseArgs({
  options: {
    order: { type: 'string', default: EXAMPLE_ORDERS.agentsSdk },
    'amount-minor': { type: 'string', default: '1200' },
  },
});

/** What the last tool call came back with, from the items the SDK sends the model. */
function lastOutcome(request: ModelRequest): ToolOutcome | undefined {
  const items = Array.isArray(request.input) ? request.input : [];
  const result = [...items].reverse().find((item) => item.type === 'function_call_result') as
    | { output?: unknown }
    | undefined;
  if (!result) return undefined;
  const output = result.output as { type?: string; text?: string } | string | undefined;
  const text = typeof output === 'string' ? output : output?.text;
  try {
    return text ? (JSON.parse(text) as ToolOutcome) : undefined;
  } catch {
    return undefined;
  }
}

class ScriptedModel implements Model {
  private calls = 0;
  constructor(private readonly script: (last: ToolOutcome | undefined) => Move) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const move = this.script(lastOutcome(request));
    const usage = new Usage();
    if ('say' in move)
      return {
        usage,
        output: [
          {
            type: 'message',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: move.say }],
          },
        ],
      };
    console.log(`▸ model calls issue_refund ${JSON.stringify(move.call)}`);
    const callId = `call_${Date.now().toString(36)}_${++this.calls}`;
    return {
      usage,
      output: [
        {
          type: 'function_call',
          callId,
          name: 'issue_refund',
          arguments: JSON.stringify(move.call),
          status: 'completed',
        },
      ],
    };
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the scripted model does not stream');
  }
}

async function main(): Promise<number> {
  setTracingDisabled(true);
  const client = createAgentClient(exampleSettings());
  const contracts = await client.contracts();
  if (!contracts.ok) throw new Error(`could not read the contracts: ${contracts.error.message}`);
  const { tools, resolveApprovals } = countersignAgentTools(client, contracts.value, {
    actions: ['issue_refund'],
    wait: { deadlineMs: 120_000, initialDelayMs: 250, maxDelayMs: 2_000 },
    onProposed: (proposal) =>
      console.log(`  proposal ${proposal.id} is waiting for a person: ${proposal.links.review}`),
  });
  const agent = new Agent({
    name: 'Support agent',
    instructions: 'Refund customers when the evidence supports it.',
    tools,
    model: new ScriptedModel(refundScript(values.order, Number(values['amount-minor']))),
  });

  let result = await run(
    agent,
    `Refund ${values['amount-minor']} cents on order ${values.order}: the filter arrived damaged.`,
  );
  for (let round = 0; result.interruptions.length > 0 && round < 5; round++) {
    for (const outcome of await resolveApprovals(result.interruptions, result.state))
      console.log(`  Countersign: ${JSON.stringify(outcome)}`);
    result = await run(agent, result.state);
  }
  const text = String(result.finalOutput ?? '');
  console.log(`Model: ${text}`);
  return /ended (succeeded|failed|rejected|expired|stale|cancelled)/.test(text) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('example failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
