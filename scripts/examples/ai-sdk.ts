/**
 * `npm run example:ai-sdk [-- --order ord_1842 --amount-minor 500]`: the Vercel AI SDK with
 * Countersign's tools (lib/adapters/ai-sdk.ts). A scripted stand-in drives the model's side (no
 * model, no API key): it calls issue_refund with a mistake, repairs it from the refusal, waits for
 * an operator's decision inside the tool, and reports the outcome. Needs a running Countersign, as
 * `npm run example:agent` does (COUNTERSIGN_URL, COUNTERSIGN_AGENT_KEY or the demo's credentials).
 */
import { parseArgs } from 'node:util';
import { generateText, type JSONValue, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { EXAMPLE_ORDERS } from '@/demo/systems/world';
import { countersignTools } from '@/lib/adapters/ai-sdk';
import type { ToolOutcome } from '@/lib/adapters/propose-and-wait';
import { createAgentClient } from '@/lib/agent-client';
import { refundScript } from './scripted-model';
import { exampleSettings } from './settings';

const { values } = parseArgs({
  options: {
    order: { type: 'string', default: EXAMPLE_ORDERS.aiSdk },
    'amount-minor': { type: 'string', default: '1200' },
  },
});
const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

async function main(): Promise<number> {
  const client = createAgentClient(exampleSettings());
  const contracts = await client.contracts();
  if (!contracts.ok) throw new Error(`could not read the contracts: ${contracts.error.message}`);
  const tools = countersignTools(client, contracts.value, {
    actions: ['issue_refund'],
    wait: { deadlineMs: 120_000, initialDelayMs: 250, maxDelayMs: 2_000 },
    onProposed: (proposal) =>
      console.log(`  proposal ${proposal.id} is waiting for a person: ${proposal.links.review}`),
  });
  const script = refundScript(values.order, Number(values['amount-minor']));
  let calls = 0;

  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const message = prompt.at(-1);
      const part = message?.role === 'tool' ? message.content.find((p) => p.type === 'tool-result') : undefined;
      const last =
        part?.type === 'tool-result' && part.output.type === 'json'
          ? (part.output.value as unknown as ToolOutcome)
          : undefined;
      const move = script(last);
      if ('say' in move)
        return {
          content: [{ type: 'text', text: move.say }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      const toolCallId = `call_${Date.now().toString(36)}_${++calls}`;
      console.log(`▸ model calls issue_refund ${JSON.stringify(move.call)}`);
      return {
        content: [{ type: 'tool-call', toolCallId, toolName: 'issue_refund', input: JSON.stringify(move.call) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });

  const result = await generateText({
    model,
    tools,
    stopWhen: stepCountIs(4),
    prompt: `Refund ${values['amount-minor']} cents on order ${values.order}: the filter arrived damaged.`,
    onStepFinish: (step) => {
      for (const toolResult of step.toolResults)
        console.log(`  tool result: ${JSON.stringify(toolResult.output as JSONValue)}`);
    },
  });
  console.log(`Model: ${result.text}`);
  return /ended (succeeded|failed|rejected|expired|stale|cancelled)/.test(result.text) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('example failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
