import { z } from 'zod';
import type { Facts } from '@/db/schema';
import type {
  ActionModule,
  ContractVersion,
  EditingSpec,
  OpenClaims,
  Resolution,
  RuleAgent,
} from '@/lib/actions/types';
import { formatMoney } from '@/lib/money';
import { isTimeout, SystemsUnavailableError, type WriteResponse } from '@/lib/systems/client';
import { holds, numberOf } from './cel';
import { firstBreach } from './evaluate';
import type { CompiledContract, ParsedDefinition } from './parse';
import { callService, jsonOf } from './services';

/**
 * A tenant's declared action (docs/actions.md) as the action every gate, the executor and the
 * dashboard already read: its contracts checked by their JSON Schema, its rules, authority, risk and
 * receipt checks by its CEL, Meaning asked of the team's resolver and the effect of its executor
 * (docs/executors.md).
 */

/** The most facts a resolver may answer, each kept with every proposal and shown to people. */
export const MAX_FACTS = 64;
const scalar = z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]);
/** A resolver's answer: the resource inside the tenant asked for, and a few facts that are JSON scalars. */
const resolved = z.strictObject({
  tenant: z.string(),
  resourceKey: z.string().min(1).max(200),
  facts: z.record(z.string().min(1).max(64), scalar).refine((facts) => Object.keys(facts).length <= MAX_FACTS),
  detail: z.string().max(500),
});
const executed = z.strictObject({ receipt: z.record(z.string(), z.unknown()) });
const refusedBody = z.object({
  error: z.object({ code: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/), message: z.string() }),
});

const NO_AGENT: RuleAgent = { id: '', grants: {} };
const DEFAULT_EXPIRY_HOURS = 24;

/** Definitions are JSON Schema 2020-12: the dialect is said in every schema agents are shown. */
const dialect = (schema: Record<string, unknown>) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  ...schema,
});

function contractOf(compiled: CompiledContract): ContractVersion {
  return {
    version: compiled.version,
    status: compiled.status,
    inputSchema: dialect(compiled.args),
    check(value) {
      const issues = compiled.validateArgs(value);
      return issues.length === 0 ? { ok: true, args: value as Record<string, unknown> } : { ok: false, issues };
    },
  };
}

/** The currency argument beside each money amount the definition names (summary and editing). */
function currencies(definition: ParsedDefinition): Map<string, string> {
  const { summary, editing } = definition.document;
  return new Map([
    ...(summary.money ?? []).map((each) => [each.amount, each.currency] as const),
    ...(editing?.money ?? []).map((each) => [each.amount, each.currency] as const),
  ]);
}

/** An argument's value for a person: money in major units beside its currency. */
function shown(money: Map<string, string>, args: Record<string, unknown>, name: string, value = args[name]): string {
  const currency = money.get(name);
  if (currency && typeof value === 'number' && typeof args[currency] === 'string')
    return formatMoney(value, args[currency]);
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value ?? null);
}

/** Each `{argument}` of a template (the summary, the approve label) as `shown` gives it. */
function filled(definition: ParsedDefinition, template: string, args: Record<string, unknown>): string {
  const money = currencies(definition);
  return template.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, (_, name: string) => shown(money, args, name));
}

/** "49.00 USD of 50.00 USD: still refundable" once an argument reaches `near` of its live limit; else nothing. */
function nearLimitOf(definition: ParsedDefinition): ActionModule['nearLimit'] {
  const limit = definition.document.editing?.limit;
  const max = definition.limit;
  if (!limit?.near || !max) return undefined;
  const { field, why, near } = limit;
  const money = currencies(definition);
  return (args, resolution, open) => {
    const bound = numberOf(max, { args, facts: resolution.facts, open });
    const value = args[field];
    if (bound === undefined || !(bound > 0) || typeof value !== 'number' || value < bound * near) return undefined;
    return `${shown(money, args, field)} of ${shown(money, args, field, bound)}: ${why}`;
  };
}

function editingOf(definition: ParsedDefinition): EditingSpec | undefined {
  const editing = definition.document.editing;
  if (!editing) return undefined;
  const { limit } = editing;
  const max = definition.limit;
  return {
    locked: editing.locked,
    money: editing.money?.map(({ amount, currency, label }) => ({ field: amount, currencyField: currency, label })),
    ...(limit && max
      ? {
          limit(args: Record<string, unknown>, resolution: Resolution, open: OpenClaims) {
            const value = numberOf(max, { args, facts: resolution.facts, open });
            return value === undefined ? undefined : { field: limit.field, max: value, why: limit.why };
          },
        }
      : {}),
  };
}

/** The receipt against the contract whose arguments these are, then each `receiptMatches` expression. */
function receiptCheck(definition: ParsedDefinition) {
  return (receipt: unknown, args: Record<string, unknown>, facts: Facts) => {
    const contract = definition.contracts.find((each) => each.validateArgs(args).length === 0);
    if (!contract) return { ok: false as const, reason: 'the arguments match no contract version of the action' };
    const issues = contract.validateReceipt(receipt);
    if (issues.length > 0)
      return { ok: false as const, reason: `receipt does not match the receipt schema (${issues[0]!.field})` };
    const failed = definition.receiptMatches.find((expression) => !holds(expression, { args, facts, receipt }));
    if (failed) return { ok: false as const, reason: `receipt does not match the command (${failed.source})` };
    return { ok: true as const, receipt: receipt as Record<string, unknown> };
  };
}

async function executeRemotely(executor: string, jws: string, signal: AbortSignal): Promise<WriteResponse> {
  let answer: Awaited<ReturnType<typeof callService>>;
  let body: unknown;
  try {
    answer = await callService({ url: executor, method: 'POST', body: jws, contentType: 'application/jose', signal });
    body = await jsonOf(answer);
  } catch (error) {
    if (error instanceof SystemsUnavailableError) throw error;
    return { kind: 'unknown', reason: isTimeout(error) ? 'timeout' : 'unreachable' };
  }
  if (answer.status === 200) {
    const parsed = executed.safeParse(body);
    return parsed.success
      ? { kind: 'answered', status: 200, body: parsed.data.receipt }
      : { kind: 'unknown', reason: 'malformed_response' };
  }
  if (answer.status === 422) {
    const parsed = refusedBody.safeParse(body);
    if (parsed.success)
      return {
        kind: 'refused',
        status: 422,
        code: parsed.data.error.code,
        message: parsed.data.error.message.slice(0, 500),
      };
  }
  return { kind: 'unknown', reason: answer.status >= 500 ? 'system_error' : 'malformed_response' };
}

export function definedAction(definition: ParsedDefinition, version: number): ActionModule {
  const { document } = definition;
  const contracts = definition.contracts.map(contractOf);
  const current = definition.contracts.find((each) => each.status === 'current') ?? definition.contracts[0]!;
  const summarize = (args: Record<string, unknown>) => filled(definition, document.summary.template, args);
  const nearLimit = nearLimitOf(definition);
  const money = currencies(definition);
  const editing = editingOf(definition);
  return {
    name: document.name,
    definitionVersion: version,
    scope: document.scope,
    title: document.title,
    contracts,
    outputSchema: dialect(current.receipt),
    summarize,
    argHints: (args) =>
      Object.fromEntries(
        [...money].flatMap(([amount, currency]) =>
          typeof args[amount] === 'number' && typeof args[currency] === 'string'
            ? [[amount, shown(money, args, amount)]]
            : [],
        ),
      ),
    approveLabel: (args) =>
      document.approveLabel ? filled(definition, document.approveLabel, args) : `Approve: ${summarize(args)}`,
    ...(document.receiptNoun ? { receiptNoun: () => document.receiptNoun! } : {}),
    ...(nearLimit ? { nearLimit } : {}),

    async resolve(_systems, tenantId, args, contractVersion) {
      const body = JSON.stringify({
        tenant: tenantId,
        action: document.name,
        contractVersion: contractVersion ?? current.version,
        args,
      });
      let answer: Awaited<ReturnType<typeof callService>>;
      try {
        answer = await callService({ url: document.resolve, method: 'POST', body });
      } catch (error) {
        if (error instanceof SystemsUnavailableError) throw error;
        throw new SystemsUnavailableError(isTimeout(error) ? 'timeout' : 'unreachable');
      }
      const parsed = resolved.safeParse(await jsonOf(answer));
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw new SystemsUnavailableError(`status ${answer.status}`);
      if (!parsed.success) throw new SystemsUnavailableError('unexpected response shape');
      // Another tenant's resource reads exactly as a missing one.
      if (parsed.data.tenant !== tenantId) return undefined;
      const { resourceKey, facts, detail } = parsed.data;
      return { resourceKey, facts, detail };
    },

    ...(document.claims ? { claimField: document.claims } : {}),
    checkRules(args, resolution, open, agent = NO_AGENT) {
      const breach = firstBreach(definition, { args, facts: resolution.facts, open, agent, now: new Date() });
      return breach ? { code: 'rule_not_met', message: breach.message, ruleCode: breach.code } : undefined;
    },
    grants: document.authority.grants,
    authorize: (grants, resolution) => holds(definition.authority, { agent: { grants }, facts: resolution.facts }),
    risk(args) {
      const { high, medium } = definition.risk;
      if (high && holds(high, { args, facts: {} })) return 'high';
      if (medium && holds(medium, { args, facts: {} })) return 'medium';
      return 'low';
    },
    defaultRules: document.defaultRules ?? [
      {
        id: `${document.name}-one-approver`,
        description: 'Every proposal needs one approver',
        when: null,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    ],
    defaultExpiryHours: DEFAULT_EXPIRY_HOURS,

    execute: ({ command, signal }) => executeRemotely(document.executor, command.jws, signal),
    async lookupReceipt({ commandId }) {
      const url = `${document.executor}/${encodeURIComponent(commandId)}`;
      let answer: Awaited<ReturnType<typeof callService>>;
      try {
        answer = await callService({ url, method: 'GET' });
      } catch (error) {
        if (error instanceof SystemsUnavailableError) throw error;
        throw new SystemsUnavailableError(isTimeout(error) ? 'timeout' : 'unreachable');
      }
      const body = await jsonOf(answer);
      if (answer.status === 404) return { found: false };
      const parsed = executed.safeParse(body);
      if (answer.status !== 200 || !parsed.success) throw new SystemsUnavailableError(`status ${answer.status}`);
      return { found: true, receipt: parsed.data.receipt };
    },
    validateReceipt: receiptCheck(definition),
    ...(editing ? { editing } : {}),
  };
}
