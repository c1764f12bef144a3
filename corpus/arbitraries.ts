import fc from 'fast-check';
import { SEEDED_EVIDENCE, SEEDED_ORDERS, SEEDED_REFUNDS, SEEDED_SKUS } from '@/demo/systems/world';
import { DEMO_AGENTS } from '@/demo/world';
import { findAction } from '@/lib/actions/registry';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { REQUEST_ID } from '@/lib/ids';
import { MAX_EVIDENCE_REFS } from '@/lib/input/envelope';
import type { Tenant } from './world';

/**
 * fast-check arbitraries for the property tests: valid envelopes generated from the contracts
 * (their JSON Schema bounds) and the seeded world (docs/design.md §13), and single mutations of them
 * that the Shape gate must refuse, each with the field the refusal must name.
 */

export type ActionName = 'hold_stock' | 'issue_refund';
export const ACTIONS: readonly ActionName[] = ['hold_stock', 'issue_refund'];

export type Envelope = {
  requestId: string;
  action: ActionName;
  contractVersion: number;
  args: Record<string, unknown>;
  evidenceRefs?: string[];
};

type PropertySchema = {
  type?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: string[];
  pattern?: string;
};
type ArgsSchema = { properties: Record<string, PropertySchema>; required: string[] };

/** The current contract's arguments, as its published JSON Schema describes them. */
export function argsSchema(action: ActionName): ArgsSchema {
  const contract = findAction(action)!.contracts.find((c) => c.status === 'current')!;
  return contract.inputSchema as unknown as ArgsSchema;
}

const HOLD = argsSchema('hold_stock');
const REFUND = argsSchema('issue_refund');
const bound = (schema: ArgsSchema, field: string, key: keyof PropertySchema): number => {
  const value = schema.properties[field]?.[key];
  if (typeof value !== 'number') throw new Error(`the contract has no ${key} for ${field}`);
  return value;
};

export const ENVELOPE_FIELDS = ['requestId', 'action', 'contractVersion', 'args', 'evidenceRefs', 'repairOf'] as const;
const REQUIRED_ENVELOPE_FIELDS = ['requestId', 'action', 'contractVersion', 'args'] as const;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What a tenant's seeded key may legitimately use: SKUs in its warehouses, its orders with their balances, its
 * evidence.
 */
export function tenantWorld(tenant: Tenant) {
  const grants = DEMO_AGENTS.find((agent) => agent.tenant === tenant)!.grants.warehouses ?? [];
  return {
    skus: SEEDED_SKUS.filter((sku) => sku.tenant === tenant && grants.includes(sku.warehouse)).map((sku) => ({
      sku: sku.sku,
      maxHold: sku.maxHold,
    })),
    orders: SEEDED_ORDERS.filter((order) => order.tenant === tenant).map((order) => ({
      orderId: order.id,
      currency: order.currency,
      balance:
        order.chargedMinor -
        SEEDED_REFUNDS.filter((refund) => refund.orderId === order.id).reduce(
          (sum, refund) => sum + refund.amountMinor,
          0,
        ),
    })),
    evidence: SEEDED_EVIDENCE.filter((evidence) => evidence.tenant === tenant).map((evidence) => evidence.id),
  };
}

/** A principal for the Shape gate alone (it reads only the allowed actions). */
export function shapePrincipal(tenant: Tenant): AgentPrincipal {
  const agent = DEMO_AGENTS.find((a) => a.tenant === tenant)!;
  return {
    keyId: `key_property_${tenant}`,
    tenantId: tenant,
    agentName: agent.name,
    allowedActions: [...agent.actions],
    grants: agent.grants,
    onBehalfOfUserId: null,
  };
}

export const requestIdArb = fc.stringMatching(REQUEST_ID);

/**
 * Free text within the contract's bounds: any well-formed Unicode except U+0000, which the
 * envelope refuses before the contract (400 nul_character: PostgreSQL cannot store it).
 */
function textArb(minLength: number, maxLength: number) {
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.min(maxLength, 60) }) },
      {
        weight: 1,
        arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: Math.max(minLength, maxLength - 20), maxLength }),
      },
    )
    .filter(
      (text) => text.length >= minLength && text.length <= maxLength && text.isWellFormed() && !text.includes('\u0000'),
    );
}

export function validArgs(action: ActionName, tenant: Tenant): fc.Arbitrary<Record<string, unknown>> {
  const world = tenantWorld(tenant);
  if (action === 'hold_stock') {
    const [min, max] = [bound(HOLD, 'quantity', 'minimum'), bound(HOLD, 'quantity', 'maximum')];
    return fc
      .constantFrom(...world.skus)
      .chain((sku) =>
        fc.record({ sku: fc.constant(sku.sku), quantity: fc.integer({ min, max: Math.min(max, sku.maxHold) }) }),
      );
  }
  const reason = textArb(bound(REFUND, 'reason', 'minLength'), bound(REFUND, 'reason', 'maxLength'));
  return fc.constantFrom(...world.orders).chain((order) =>
    fc.record({
      orderId: fc.constant(order.orderId),
      amountMinor: fc.integer({ min: bound(REFUND, 'amountMinor', 'minimum'), max: order.balance }),
      currency: fc.constant(order.currency),
      reason,
    }),
  );
}

/** A valid envelope for one of the tenant's actions; evidenceRefs absent, empty or some of the tenant's own. */
export function validEnvelope(tenant: Tenant, action?: ActionName): fc.Arbitrary<Envelope> {
  const world = tenantWorld(tenant);
  return fc.constantFrom(...(action ? [action] : ACTIONS)).chain((name) =>
    fc.record(
      {
        requestId: requestIdArb,
        action: fc.constant(name),
        contractVersion: fc.constant(1),
        args: validArgs(name, tenant),
        evidenceRefs: fc.subarray(world.evidence),
      },
      { requiredKeys: ['requestId', 'action', 'contractVersion', 'args'] },
    ),
  );
}

// ---------------------------------------------------------------------------------------------
// Mutations: each returns the mutated envelope and the field the Shape gate must name.

export type Mutated = { kind: string; value: Record<string, unknown>; field: string; issue?: string };

type JsonType = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object';
const jsonType = (value: unknown): JsonType =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : (typeof value as 'boolean' | 'number' | 'string' | 'object');

const OTHER_VALUES: Record<JsonType, fc.Arbitrary<unknown>> = {
  null: fc.constant(null),
  boolean: fc.boolean(),
  number: fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })),
  string: fc.string({ maxLength: 12 }),
  array: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  object: fc.dictionary(
    fc.string({ maxLength: 8 }).filter((k) => !FORBIDDEN_KEYS.has(k)),
    fc.jsonValue({ maxDepth: 1 }),
    { maxKeys: 3 },
  ),
};

/** A JSON value of any type but the given ones. */
function otherType(...not: JsonType[]): fc.Arbitrary<unknown> {
  return fc.oneof(
    ...(Object.keys(OTHER_VALUES) as JsonType[])
      .filter((type) => !not.includes(type))
      .map((type) => OTHER_VALUES[type]),
  );
}

type Slot = { level: 'envelope' | 'args'; name: string; schema?: PropertySchema };

function slots(envelope: Envelope): Slot[] {
  const args = argsSchema(envelope.action);
  return [
    ...REQUIRED_ENVELOPE_FIELDS.map((name) => ({ level: 'envelope' as const, name })),
    { level: 'envelope', name: 'evidenceRefs' },
    ...Object.entries(args.properties).map(([name, schema]) => ({ level: 'args' as const, name, schema })),
  ];
}

function withValue(envelope: Envelope, slot: Slot, value: unknown): Record<string, unknown> {
  if (slot.level === 'envelope') return { ...envelope, [slot.name]: value };
  return { ...envelope, args: { ...envelope.args, [slot.name]: value } };
}

function without(envelope: Envelope, slot: Slot): Record<string, unknown> {
  if (slot.level === 'envelope') {
    const copy: Record<string, unknown> = { ...envelope };
    delete copy[slot.name];
    return copy;
  }
  const args = { ...envelope.args };
  delete args[slot.name];
  return { ...envelope, args };
}

const integerSlots = (envelope: Envelope) =>
  slots(envelope).filter((s) => s.name === 'contractVersion' || s.schema?.type === 'integer');

/** An extra key, at the envelope's top level or inside args. */
export function extraKey(
  envelope: Envelope,
  keys: fc.Arbitrary<string> = fc.string({ maxLength: 16 }),
): fc.Arbitrary<Mutated> {
  const known = {
    envelope: new Set<string>(ENVELOPE_FIELDS),
    args: new Set(Object.keys(argsSchema(envelope.action).properties)),
  };
  return fc.constantFrom('envelope' as const, 'args' as const).chain((level) =>
    fc
      .record({
        key: keys.filter((key) => !known[level].has(key) && !FORBIDDEN_KEYS.has(key)),
        value: fc.jsonValue({ maxDepth: 2 }),
      })
      .map(({ key, value }) => ({
        kind: `extra ${level} key`,
        value: withValue(envelope, { level, name: key }, value),
        field: key,
        issue: 'unknown_field',
      })),
  );
}

/** A value of another JSON type in any field (an integer's other type excludes numbers). */
export function typeSwap(envelope: Envelope): fc.Arbitrary<Mutated> {
  return fc.constantFrom(...slots(envelope)).chain((slot) => {
    const current =
      slot.level === 'envelope' ? (envelope as Record<string, unknown>)[slot.name] : envelope.args[slot.name];
    const type = current === undefined ? 'array' : jsonType(current);
    return otherType(type).map((value) => ({
      kind: `type swap of ${slot.name}`,
      value: withValue(envelope, slot, value),
      field: slot.name,
    }));
  });
}

/** An integer written as a string, in the ways people and models write numbers. */
export function numericString(envelope: Envelope): fc.Arbitrary<Mutated> {
  return fc.constantFrom(...integerSlots(envelope)).chain((slot) => {
    const n = Number(
      slot.level === 'envelope' ? (envelope as Record<string, unknown>)[slot.name] : envelope.args[slot.name],
    );
    return fc
      .constantFrom(String(n), ` ${n}`, `${n}.0`, `+${n}`, `0x${n.toString(16)}`, `${n}e0`, `${n} `)
      .map((text) => ({
        kind: `numeric string in ${slot.name}`,
        value: withValue(envelope, slot, text),
        field: slot.name,
        issue: 'invalid_type',
      }));
  });
}

/** A non-integral finite number where an integer is wanted. */
export function float(envelope: Envelope): fc.Arbitrary<Mutated> {
  return fc.constantFrom(...integerSlots(envelope)).chain((slot) =>
    fc
      .double({ noNaN: true, noDefaultInfinity: true })
      .filter((x) => !Number.isInteger(x))
      .map((x) => ({
        kind: `float in ${slot.name}`,
        value: withValue(envelope, slot, x),
        field: slot.name,
        issue: 'invalid_type',
      })),
  );
}

/** Numbers and lengths outside the contract's bounds (never clamped). */
export function outOfRange(envelope: Envelope): fc.Arbitrary<Mutated> {
  const choices: fc.Arbitrary<Mutated>[] = [];
  const put = (slot: Slot, values: fc.Arbitrary<unknown>, field = slot.name) =>
    choices.push(
      values.map((value) => ({ kind: `${slot.name} out of range`, value: withValue(envelope, slot, value), field })),
    );
  for (const slot of slots(envelope)) {
    const schema = slot.schema;
    if (slot.name === 'contractVersion') put(slot, fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 2 })));
    if (slot.name === 'requestId') put(slot, fc.oneof(fc.constant(''), fc.stringMatching(/^[A-Za-z0-9]{129,200}$/)));
    if (slot.name === 'evidenceRefs') {
      put(
        slot,
        fc.array(fc.constant('ticket_message_73'), {
          minLength: MAX_EVIDENCE_REFS + 1,
          maxLength: MAX_EVIDENCE_REFS + 5,
        }),
      );
      put(slot, fc.constantFrom([''], ['x'.repeat(129)]), 'evidenceRefs.0');
    }
    if (schema?.type === 'integer') {
      const below = fc.integer({ min: Number.MIN_SAFE_INTEGER, max: (schema.minimum ?? Number.MIN_SAFE_INTEGER) - 1 });
      const above =
        schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER
          ? [fc.integer({ min: schema.maximum + 1, max: Number.MAX_SAFE_INTEGER })]
          : [];
      put(slot, fc.oneof(below, ...above, fc.constantFrom(2 ** 53, 2 ** 60, 1e21, -(2 ** 53))));
    }
    if (schema?.type === 'string' && schema.maxLength !== undefined) {
      put(
        slot,
        fc.oneof(
          fc.constant(''.padEnd(Math.max((schema.minLength ?? 1) - 1, 0), 'x')),
          fc.string({ unit: 'grapheme-ascii', minLength: schema.maxLength + 1, maxLength: schema.maxLength + 40 }),
        ),
      );
    }
  }
  return fc.oneof(...choices);
}

/** Characters that look like Latin letters and digits but are not ASCII. */
const LOOKALIKE: Record<string, string[]> = {
  A: ['А', 'Α', 'Ａ'],
  B: ['В', 'Β'],
  C: ['С', 'Ϲ'],
  D: ['Ꭰ', 'Ｄ'],
  E: ['Е', 'Ε'],
  F: ['Ϝ'],
  G: ['Ԍ'],
  H: ['Н', 'Η'],
  I: ['І', 'Ι'],
  J: ['Ј'],
  K: ['К', 'Κ'],
  L: ['Ꮮ'],
  M: ['М', 'Μ'],
  N: ['Ν'],
  O: ['О', 'Ο'],
  P: ['Р', 'Ρ'],
  Q: ['Ｑ'],
  R: ['Ꭱ'],
  S: ['Ѕ'],
  T: ['Т', 'Τ'],
  U: ['Ｕ', 'Ս'],
  V: ['Ꮩ'],
  W: ['Ԝ'],
  X: ['Х', 'Χ'],
  Y: ['Υ', 'Ү'],
  Z: ['Ζ'],
  a: ['а'],
  c: ['с'],
  d: ['ԁ'],
  e: ['е'],
  f: ['ſ'],
  h: ['һ'],
  i: ['і'],
  k: ['κ'],
  l: ['ӏ'],
  n: ['ո'],
  o: ['о', 'ο'],
  p: ['р'],
  r: ['г'],
  s: ['ѕ'],
  t: ['τ'],
  u: ['υ'],
  _: ['＿'],
};
const digitLookalikes = (digit: number) => [
  String.fromCharCode(0xff10 + digit),
  String.fromCharCode(0x0660 + digit),
  String.fromCharCode(0x06f0 + digit),
  String.fromCharCode(0x1d7ce + digit),
];
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad'];

function lookalikeOf(text: string): fc.Arbitrary<string> {
  const insert = fc
    .record({ at: fc.integer({ min: 0, max: text.length }), mark: fc.constantFrom(...INVISIBLE) })
    .map(({ at, mark }) => text.slice(0, at) + mark + text.slice(at));
  const positions = [...text].map((ch, index) => ({ ch, index })).filter(({ ch }) => LOOKALIKE[ch] || /[0-9]/.test(ch));
  if (positions.length === 0) return insert;
  const replace = fc.constantFrom(...positions).chain(({ ch, index }) =>
    fc.constantFrom(...(/[0-9]/.test(ch) ? digitLookalikes(Number(ch)) : LOOKALIKE[ch]!)).map((other) => {
      const chars = [...text];
      chars[index] = other;
      return chars.join('');
    }),
  );
  return fc.oneof(replace, insert);
}

/**
 * Unicode look-alikes (Cyrillic, Greek, full-width, other digits, invisible marks) in the fields that are enums or
 * patterns.
 */
export function lookalike(envelope: Envelope): fc.Arbitrary<Mutated> {
  const choices: fc.Arbitrary<Mutated>[] = [
    lookalikeOf(envelope.action).map((text) => ({
      kind: 'look-alike action',
      value: { ...envelope, action: text },
      field: 'action',
      issue: 'unknown_action',
    })),
    lookalikeOf(envelope.requestId).map((text) => ({
      kind: 'look-alike requestId',
      value: { ...envelope, requestId: text },
      field: 'requestId',
    })),
  ];
  for (const [name, schema] of Object.entries(argsSchema(envelope.action).properties)) {
    const current = envelope.args[name];
    if (typeof current !== 'string' || (!schema.enum && !schema.pattern)) continue;
    const issue = schema.enum ? 'invalid_value' : 'invalid_format';
    const lowerCase = schema.enum && current !== current.toLowerCase() ? [fc.constant(current.toLowerCase())] : [];
    choices.push(
      fc.oneof(lookalikeOf(current), ...lowerCase).map((text) => ({
        kind: `look-alike ${name}`,
        value: { ...envelope, args: { ...envelope.args, [name]: text } },
        field: name,
        issue,
      })),
    );
  }
  return fc.oneof(...choices);
}

/** A required field left out: reported as `required`, by its own name. */
export function missingRequired(envelope: Envelope): fc.Arbitrary<Mutated> {
  const required = new Set(argsSchema(envelope.action).required);
  const candidates = slots(envelope).filter((slot) =>
    slot.level === 'envelope' ? slot.name !== 'evidenceRefs' : required.has(slot.name),
  );
  return fc.constantFrom(...candidates).map((slot) => ({
    kind: `missing ${slot.name}`,
    value: without(envelope, slot),
    field: slot.name,
    issue: 'required',
  }));
}

/** Every mutation family, for the end-to-end property (extra keys of any Unicode, U+0000 included). */
export function anyMutation(envelope: Envelope): fc.Arbitrary<Mutated> {
  return fc.oneof(
    extraKey(envelope, fc.string({ unit: 'binary', maxLength: 16 })),
    typeSwap(envelope),
    numericString(envelope),
    float(envelope),
    outOfRange(envelope),
    lookalike(envelope),
    missingRequired(envelope),
  );
}
