import type { NormalizedPayload } from '@/db/schema';
import { acceptedVersions, allActions, findContract } from '@/lib/actions/registry';
import type { ActionModule, ContractVersion } from '@/lib/actions/types';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import type { ErrorKey } from '@/lib/errors/codes';
import { Refusal } from '@/lib/errors/refusal';
import type { Verdict } from '@/lib/gates/types';
import { type Envelope, envelopeSchema } from '@/lib/input/envelope';
import { type FieldIssue, toFieldIssues } from '@/lib/input/field-issues';

export type ShadowVerdict = { version: number; accepted: boolean; codes: string[] };
export type ShapedCandidate = {
  envelope: Envelope;
  action: ActionModule;
  contract: ContractVersion;
  args: NormalizedPayload['args'];
};

const schemaRefusal = (
  message: string,
  issues: FieldIssue[],
  code: ErrorKey = 'contract_violation',
  extra: Record<string, unknown> = {},
): Verdict<never, Refusal> => ({
  ok: false,
  refusal: new Refusal(code, message, { issues, ...extra, repair: { allowed: true } }),
});

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The Shape gate: the closed envelope and the action's closed contract, checked together so one
 * answer lists every problem (envelope fields by name, arguments by their own dotted name).
 * An action the key may not use is refused before its contract is disclosed. `actions` are the
 * actions as the key's tenant has them (lib/contracts/catalog.ts: its rollout's statuses).
 */
export function shapeGate(
  value: unknown,
  agent: AgentPrincipal,
  actions: readonly ActionModule[] = allActions(),
): Verdict<ShapedCandidate, Refusal> {
  if (!isObject(value)) {
    return schemaRefusal('The body must be a JSON object (the proposal envelope).', [
      {
        field: '(body)',
        code: 'invalid_type',
        expected: 'object',
        received: Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value,
        message: 'The body must be a JSON object.',
      },
    ]);
  }
  const issues: FieldIssue[] = [];
  const envelope = envelopeSchema.safeParse(value);
  if (!envelope.success) issues.push(...toFieldIssues(envelope.error, value, envelopeSchema));

  const action = typeof value.action === 'string' ? actions.find((a) => a.name === value.action) : undefined;
  if (typeof value.action === 'string' && !action) {
    const known = actions.map((a) => a.name);
    issues.push({
      field: 'action',
      code: 'unknown_action',
      expected: `one of ${known.join(', ')}`,
      received: 'an action that does not exist',
      message: `"action" must be one of ${known.join(', ')}.`,
    });
  }
  if (action && !agent.allowedActions.includes(action.name)) {
    return {
      ok: false,
      refusal: new Refusal('action_not_allowed', `This agent key may not propose ${action.name}.`),
    };
  }

  let contract: ContractVersion | undefined;
  if (action && Number.isInteger(value.contractVersion)) {
    const supported = acceptedVersions(action);
    contract = findContract(action, value.contractVersion as number);
    if (!contract || !supported.includes(contract.version)) {
      return schemaRefusal(
        `${action.name} v${String(value.contractVersion)} is not accepted; use one of: ${supported.join(', ')}.`,
        [
          {
            field: 'contractVersion',
            code: 'unsupported_contract_version',
            expected: `one of ${supported.join(', ')}`,
            received: `integer ${String(value.contractVersion)}`,
            message: `"contractVersion" must be one of ${supported.join(', ')}.`,
          },
        ],
        'unsupported_contract_version',
        { supportedVersions: supported },
      );
    }
  }

  let args: Record<string, unknown> | undefined;
  if (contract && isObject(value.args)) {
    const checked = contract.check(value.args);
    if (checked.ok) args = checked.args;
    else issues.push(...checked.issues);
  }

  if (issues.length > 0 || !envelope.success || !action || !contract || !args) {
    const what = action && contract ? `${action.name} v${contract.version}` : 'the proposal envelope';
    return schemaRefusal(`The proposal does not match ${what}.`, issues);
  }
  return { ok: true, value: { envelope: envelope.data, action, contract, args } };
}

/**
 * What each shadow version of the candidate's action says about its arguments, whatever the
 * deciding version said (so a refusal by current is measured against shadow too); empty when the
 * body names no known action.
 */
export function shadowVerdicts(value: unknown, actions: readonly ActionModule[] = allActions()): ShadowVerdict[] {
  if (!isObject(value) || typeof value.action !== 'string') return [];
  const action = actions.find((a) => a.name === value.action);
  if (!action) return [];
  const args = value.args;
  return action.contracts
    .filter((contract) => contract.status === 'shadow')
    .map((contract) => {
      const checked = contract.check(args);
      return {
        version: contract.version,
        accepted: checked.ok,
        codes: checked.ok ? [] : [...new Set(checked.issues.map((issue) => `${issue.field}:${issue.code}`))],
      };
    });
}
