import type { ActionModule } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { envelopeSchema } from '@/lib/input/envelope';
import { type ObjectSchema, toolSchema, withoutDialect } from './json-schema';
import { proposalResultSchema } from './results';

/** A tool that proposes one action at its tenant's current contract version. */
export type ProposalTool = {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema: ObjectSchema;
  action: string;
  contractVersion: number;
};

/**
 * Envelope fields a tool's input carries beside the contract's arguments. The arguments are
 * flattened into the tool's input (models fill flat forms best, and intake then names each field
 * exactly as the tool input spells it); these names are therefore reserved.
 */
export const ENVELOPE_FIELDS = ['requestId', 'evidenceRefs', 'repairOf'] as const;

const TOOL_PREFIX = 'propose_';

export const toolName = (action: string) => `${TOOL_PREFIX}${action}`;

/** The action a proposal tool's name stands for (undefined for any other name). */
export const actionOfTool = (name: string) =>
  name.startsWith(TOOL_PREFIX) ? name.slice(TOOL_PREFIX.length) : undefined;

const envelopeDocument = toolSchema(envelopeSchema, 'input');
const envelopeProperty = (name: (typeof ENVELOPE_FIELDS)[number]) => envelopeDocument.properties?.[name];

export const proposalOutputSchema = toolSchema(proposalResultSchema, 'output');

function describe(action: ActionModule, version: number): string {
  return [
    `Propose "${action.title}" (${action.name} v${version}) for review; nothing happens until the proposal ` +
      `is approved and executed.`,
    'Give a new requestId for each new proposal (retrying with the same requestId and arguments is safe).',
    'evidenceRefs lists the ids of records (tickets, messages) that justify it.',
    'If a call is refused with field errors, call again with the fields corrected, a new requestId and repairOf ' +
      'set to the refused requestId.',
    'Use get_proposal_status to follow the decision and the execution.',
  ].join(' ');
}

/**
 * One tool for an action's current contract version; its input is the contract's arguments plus the envelope fields,
 * closed.
 */
export function proposalTool(action: ActionModule): ProposalTool | undefined {
  const contract = action.contracts.find((c) => c.status === 'current');
  if (!contract) return undefined;
  const args = withoutDialect(contract.inputSchema);
  const argNames = Object.keys(args.properties ?? {});
  const clash = argNames.find((name) => (ENVELOPE_FIELDS as readonly string[]).includes(name));
  // Fail closed: a flattened argument shadowing an envelope field would make the mapping ambiguous.
  if (clash)
    throw new Error(
      `${action.name} v${contract.version} has an argument named "${clash}", which MCP tools reserve for the envelope.`,
    );
  // Any other keyword of the contract's document ($defs…) stays; type and closedness are set below.
  const { properties, required, ...rest } = args;
  return {
    name: toolName(action.name),
    title: action.title,
    description: describe(action, contract.version),
    inputSchema: {
      ...rest,
      type: 'object',
      properties: {
        ...properties,
        requestId: envelopeProperty('requestId'),
        evidenceRefs: envelopeProperty('evidenceRefs'),
        repairOf: envelopeProperty('repairOf'),
      },
      required: [...(required ?? []), 'requestId'],
      additionalProperties: false,
    },
    outputSchema: proposalOutputSchema,
    action: action.name,
    contractVersion: contract.version,
  };
}

/** The proposal tools of a key: one per action it may use, from its tenant's contracts (lib/contracts/catalog.ts). */
export function proposalTools(
  actions: readonly ActionModule[],
  agent: Pick<AgentPrincipal, 'allowedActions'>,
): ProposalTool[] {
  return actions
    .filter((action) => agent.allowedActions.includes(action.name))
    .flatMap((action) => proposalTool(action) ?? []);
}

/**
 * The envelope `POST /api/v1/proposals` takes, from a tool's input: the envelope fields as given,
 * every other field as an argument, values untouched (intake validates, never this).
 */
export function envelopeOf(
  tool: Pick<ProposalTool, 'action' | 'contractVersion'>,
  input: Record<string, unknown>,
): Record<string, unknown> {
  const isEnvelopeField = (key: string) => (ENVELOPE_FIELDS as readonly string[]).includes(key);
  const entries = Object.entries(input);
  // fromEntries defines own properties, so no key can reach a prototype.
  return {
    ...Object.fromEntries(entries.filter(([key]) => isEnvelopeField(key))),
    action: tool.action,
    contractVersion: tool.contractVersion,
    args: Object.fromEntries(entries.filter(([key]) => !isEnvelopeField(key))),
  };
}
