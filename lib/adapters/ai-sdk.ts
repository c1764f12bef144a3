import { type JSONSchema7, jsonSchema, type ToolSet, tool } from 'ai';
import type { AgentClient, ContractsDocument } from '@/lib/agent-client';
import { actionTools, type ProposeOptions, proposeAndWait } from './propose-and-wait';

/**
 * Vercel AI SDK tools for the actions a key may propose: each tool's `execute` proposes the call to
 * Countersign and waits for the human's decision and the execution's outcome, so the model sees
 * what the person decided (or what to repair) as the tool's result. Nothing runs in the agent:
 * Countersign's executor performs the approved action.
 */
export function countersignTools(
  client: AgentClient,
  contracts: ContractsDocument,
  options: Omit<ProposeOptions, 'prefix'> & { actions?: string[] } = {},
): ToolSet {
  const call = proposeAndWait(client, { prefix: 'ai-sdk', ...options });
  return Object.fromEntries(
    actionTools(contracts, options.actions).map((action) => [
      action.action,
      tool({
        description:
          `${action.title}. Proposed to Countersign for a person's approval; the result is their decision and ` +
          `the outcome.`,
        inputSchema: jsonSchema<Record<string, unknown>>(action.inputSchema as JSONSchema7),
        execute: (input, { toolCallId, abortSignal }) => call(action, input, toolCallId, abortSignal),
      }),
    ]),
  );
}
