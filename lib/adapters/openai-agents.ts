import { type FunctionTool, type RunToolApprovalItem, tool } from '@openai/agents';
import type { AgentClient, ContractsDocument } from '@/lib/agent-client';
import { actionTools, type ProposeOptions, proposeAndWait, type ToolOutcome } from './propose-and-wait';

/** A JSON Schema the SDK passes to the model as is (strict: false): the contract stays the source. */
type JsonParameters = Extract<Parameters<typeof tool>[0], { strict: false }>['parameters'];
type ApprovalState = {
  approve(item: RunToolApprovalItem): void;
  reject(item: RunToolApprovalItem, options?: { message?: string }): void;
};

/**
 * OpenAI Agents SDK tools whose approval hook is Countersign: every call needs approval, and
 * `resolveApprovals` answers a run's interruptions by proposing each call to Countersign and waiting
 * for the person and the execution. An approved call's tool then returns what Countersign's
 * executor did (the agent never performs the action itself); a refused or rejected one is rejected
 * in the run with Countersign's answer as the text the model reads, so it can repair or explain.
 */
export function countersignAgentTools(
  client: AgentClient,
  contracts: ContractsDocument,
  options: Omit<ProposeOptions, 'prefix'> & { actions?: string[] } = {},
) {
  const call = proposeAndWait(client, { prefix: 'agents', ...options });
  const outcomes = new Map<string, ToolOutcome>();
  const actions = actionTools(contracts, options.actions);

  const tools: FunctionTool[] = actions.map((action) =>
    tool({
      name: action.action,
      description:
        `${action.title}. Every call goes to a person for approval through Countersign, which performs it once ` +
        `approved.`,
      parameters: action.inputSchema as unknown as JsonParameters,
      strict: false,
      needsApproval: true,
      execute: async (_input, _context, details) => {
        const callId = details?.toolCall?.callId;
        return (
          (callId && outcomes.get(callId)) ?? {
            outcome: 'no_decision_yet',
            proposalId: null,
            status: null,
            message: 'This call was not decided through Countersign.',
          }
        );
      },
    }),
  );

  /** Decides each interruption through Countersign; run the agent again with the same state afterwards. */
  async function resolveApprovals(
    interruptions: RunToolApprovalItem[],
    state: ApprovalState,
    signal?: AbortSignal,
  ): Promise<ToolOutcome[]> {
    const decided: ToolOutcome[] = [];
    for (const item of interruptions) {
      const action = actions.find((candidate) => candidate.action === item.name);
      const raw = item.rawItem as { callId?: string; arguments?: string };
      if (!action || !raw.callId) {
        state.reject(item, { message: 'Not an action Countersign knows; not performed.' });
        continue;
      }
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(raw.arguments ?? '{}') as Record<string, unknown>;
      } catch {
        state.reject(item, { message: 'The arguments are not JSON; call the tool again with a JSON object.' });
        continue;
      }
      const outcome = await call(action, input, raw.callId, signal);
      decided.push(outcome);
      outcomes.set(raw.callId, outcome);
      const performed = outcome.outcome === 'succeeded' || outcome.outcome === 'failed';
      if (performed) state.approve(item);
      else state.reject(item, { message: JSON.stringify(outcome) });
    }
    return decided;
  }

  return { tools, resolveApprovals };
}
