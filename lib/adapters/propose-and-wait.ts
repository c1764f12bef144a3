import type {
  AgentClient,
  ContractsDocument,
  Issue,
  ProposalRef,
  ProposalState,
  WaitOptions,
} from '@/lib/agent-client';
import { toRequestId } from '@/lib/ids';

/**
 * What a framework's tool hands back to the model: the human's outcome in words it can act on, a
 * refusal it can repair (the fields and what was expected), or that nobody decided in time.
 */
export type ToolOutcome =
  | { outcome: 'refused'; code: string; message: string; issues: Issue[]; repairsLeft: number | null; next: string }
  | {
      outcome: 'succeeded' | 'failed' | 'rejected' | 'expired' | 'stale' | 'cancelled';
      proposalId: string;
      reviewUrl: string;
      decision: { decision: 'approve' | 'reject'; reason: string | null } | null;
      statusReason: string | null;
      execution: ProposalState['execution'];
    }
  | { outcome: 'no_decision_yet'; proposalId: string | null; status: string | null; message: string };

export type ActionTool = {
  action: string;
  title: string;
  contractVersion: number;
  /** The contract's argument schema plus `evidenceRefs`: what the model fills in. */
  inputSchema: Record<string, unknown>;
};

const EVIDENCE_REFS = {
  type: 'array',
  description: 'Ids of the evidence (tickets, messages) this action rests on; empty when there is none.',
  items: { type: 'string', minLength: 1, maxLength: 128 },
  maxItems: 20,
};

/** One tool per action, at its tenant's `current` contract version, from `GET /api/v1/contracts`. */
export function actionTools(contracts: ContractsDocument, only?: readonly string[]): ActionTool[] {
  return contracts.actions.flatMap(({ action, title, versions }) => {
    const current = versions.find((version) => version.status === 'current');
    if (!current || (only && !only.includes(action))) return [];
    const args = current.input as { properties?: Record<string, unknown>; required?: string[] };
    const inputSchema = {
      ...args,
      $schema: undefined,
      properties: { ...args.properties, evidenceRefs: EVIDENCE_REFS },
      required: [...(args.required ?? []), 'evidenceRefs'],
    };
    delete inputSchema.$schema;
    return [{ action, title, contractVersion: current.version, inputSchema }];
  });
}

/**
 * Proposes a tool call to Countersign and waits for the human's decision and the execution's
 * outcome. The requestId comes from the framework's call id, so a retried call is the same
 * proposal; a call after a refusal of the same action is sent as its repair (`repairOf`).
 */
export type ProposeOptions = {
  prefix?: string;
  wait?: WaitOptions;
  /** Called once a proposal exists and the wait for a person begins (e.g. to show its review link). */
  onProposed?: (proposal: ProposalRef) => void;
};

export function proposeAndWait(client: AgentClient, options: ProposeOptions = {}) {
  const refused = new Map<string, string>();
  return async (
    tool: ActionTool,
    input: Record<string, unknown>,
    callId: string,
    signal?: AbortSignal,
  ): Promise<ToolOutcome> => {
    const { evidenceRefs, ...args } = input;
    const requestId = toRequestId(`${options.prefix ?? 'tool'}-${callId}`);
    const repairOf = refused.get(tool.action);
    const proposed = await client.propose(
      {
        requestId,
        action: tool.action,
        contractVersion: tool.contractVersion,
        args,
        evidenceRefs: Array.isArray(evidenceRefs) ? (evidenceRefs as string[]) : [],
        ...(repairOf ? { repairOf } : {}),
      },
      signal,
    );
    if (!proposed.ok) {
      const error = proposed.error;
      if (error.type !== 'api')
        return {
          outcome: 'no_decision_yet',
          proposalId: null,
          status: null,
          message: `Countersign could not be asked: ${error.message}`,
        };
      if (error.repair?.allowed !== false) refused.set(tool.action, requestId);
      const repairsLeft = error.repair ? error.repair.attemptsLeft : null;
      const fixable = error.status === 422 && error.repair?.allowed !== false;
      return {
        outcome: 'refused',
        code: error.code,
        message: error.message,
        issues: error.issues,
        repairsLeft,
        next: fixable
          ? `Fix the fields named in issues and call ${tool.action} again (${repairsLeft ?? 'some'} repair(s) left).`
          : 'Do not retry this call; tell the person why it was refused.',
      };
    }
    refused.delete(tool.action);
    const { proposal } = proposed.value;
    options.onProposed?.(proposal);
    const waited = await client.waitForDecision(proposal.id, { until: 'final', ...options.wait, signal });
    if (!waited.ok) {
      const last = waited.error.type === 'deadline' ? waited.error.last : undefined;
      return {
        outcome: 'no_decision_yet',
        proposalId: proposal.id,
        status: last?.status ?? proposal.status,
        message: `No final outcome yet; an operator reviews it at ${proposal.links.review}`,
      };
    }
    const state = waited.value;
    const decision = state.decisions.at(-1);
    return {
      outcome: state.status as Extract<ToolOutcome, { proposalId: string; reviewUrl: string }>['outcome'],
      proposalId: state.id,
      reviewUrl: state.links.review,
      decision: decision ? { decision: decision.decision, reason: decision.reason } : null,
      statusReason: state.statusReason,
      execution: state.execution,
    };
  };
}
