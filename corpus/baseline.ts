import { findAction, findContract } from '@/lib/actions/registry';
import type { ActionModule, ContractVersion } from '@/lib/actions/types';

/**
 * A deliberately permissive validator — "valid JSON is a valid tool call" — that exists only to
 * be measured against the real gates. It is what a generic tool-call adapter often does:
 *
 * - the body is decoded leniently (bad UTF-8 becomes U+FFFD) and handed to JSON.parse, so
 *   duplicate keys (last one wins), lone surrogates, any depth, any size and any content type pass;
 * - only `action` (a known name) and `args` are read; `args` may also be a JSON string, as in
 *   chat-completion tool calls; the envelope's other fields, `contractVersion` included, are ignored;
 * - each top-level argument the contract's JSON Schema lists as required must be present and not
 *   null, with a loosely right type: numbers accept numeric strings and booleans (as 0/1), strings
 *   accept numbers and booleans. Ranges, lengths, patterns, enums and integrality are not checked;
 * - extra fields, at any level, are ignored — and forwarded: the accepted `forwarded` payload is a
 *   generic merge of the candidate over the adapter's defaults, as in the seed's naive adapter;
 * - there is no tenant, no resource look-up, no authority, no business rule and no idempotency.
 *
 * Never use it to decide anything.
 */
export type BaselineVerdict =
  | { accepted: true; action: string; args: Record<string, unknown>; forwarded: Record<string, unknown> }
  | { accepted: false; reason: string };

/** What the naive adapter fills in before merging the candidate over it (the seed's default warehouse). */
const ADAPTER_DEFAULTS: Record<string, Record<string, unknown>> = {
  hold_stock: { warehouse: 'north' },
};

type LooseSchema = { properties?: Record<string, { type?: string }>; required?: string[] };

const described = new WeakMap<ContractVersion, LooseSchema>();

/** The contract as the naive adapter sees it: its published JSON Schema, read for keys and types only. */
function looseSchema(contract: ContractVersion): LooseSchema {
  let schema = described.get(contract);
  if (!schema) {
    schema = contract.inputSchema as LooseSchema;
    described.set(contract, schema);
  }
  return schema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function looseNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return undefined;
}

function looseString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function looseValue(type: string | undefined, value: unknown): { ok: true; value: unknown } | { ok: false } {
  switch (type) {
    case 'integer':
    case 'number': {
      const number = looseNumber(value);
      return number === undefined ? { ok: false } : { ok: true, value: number };
    }
    case 'string': {
      const text = looseString(value);
      return text === undefined ? { ok: false } : { ok: true, value: text };
    }
    case 'boolean':
      return { ok: true, value: Boolean(value) };
    default:
      return { ok: true, value };
  }
}

/** The current contract of an action: what a version-blind adapter validates against. */
function currentContract(action: ActionModule): ContractVersion | undefined {
  return action.contracts.find((contract) => contract.status === 'current') ?? action.contracts[0];
}

/** The baseline's verdict on a request body (text, or bytes as received). */
export function baselineValidate(body: string | Uint8Array): BaselineVerdict {
  const text = typeof body === 'string' ? body : new TextDecoder('utf-8').decode(body);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { accepted: false, reason: 'invalid_json' };
  }
  if (!isObject(value)) return { accepted: false, reason: 'not_an_object' };

  const action = findAction(String(value.action));
  if (!action) return { accepted: false, reason: 'unknown_action' };
  const version = looseNumber(value.contractVersion);
  const contract = (version === undefined ? undefined : findContract(action, version)) ?? currentContract(action);
  if (!contract) return { accepted: false, reason: 'unknown_action' };

  let args: unknown = value.args;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return { accepted: false, reason: 'args_not_json' };
    }
  }
  if (!isObject(args)) return { accepted: false, reason: 'args_not_object' };

  const schema = looseSchema(contract);
  const coerced: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const given = args[name];
    if (given === undefined || given === null) return { accepted: false, reason: `missing:${name}` };
    const loose = looseValue(schema.properties?.[name]?.type, given);
    if (!loose.ok) return { accepted: false, reason: `type:${name}` };
    coerced[name] = loose.value;
  }
  const merged = { ...args, ...coerced };
  return {
    accepted: true,
    action: action.name,
    args: merged,
    forwarded: { ...ADAPTER_DEFAULTS[action.name], ...merged },
  };
}
