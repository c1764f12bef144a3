import { z } from 'zod';
import { routingRulesSchema } from '@/lib/routing-rules';

/**
 * An action definition (issue 37, docs/actions.md): what a tenant declares about one of its
 * actions, as data. The keys are fixed (outside checks write them) and closed at every depth: an
 * unknown key is refused, never ignored. This schema checks the document's own shape; what needs
 * more than a shape (JSON Schema, CEL, fields named across keys) is checked by parse.ts.
 */

/** Lower snake case: `create_deployment`, `change_plan`. */
export const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const snakeCase = (what: string) =>
  z
    .string()
    .max(64)
    .regex(SNAKE_CASE, { message: `${what} is lower snake case (create_deployment)` });

/** A top-level argument's name, as routing rules name one (lib/routing-rules.ts). */
const argumentName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, { message: 'names a top-level argument' });

/** A CEL expression (lib/definitions/cel.ts): compiled when the definition is parsed. */
const celSource = z.string().min(1).max(2000);

/** A service of the team's (resolver, executor): an absolute http(s) URL with no credentials or fragment. */
export const serviceUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.hostname })
  .max(2000)
  .refine((text) => {
    // Also run when the URL check failed (zod reports every issue): a text that is no URL is not this one's.
    if (!URL.canParse(text)) return true;
    const url = new URL(text);
    return url.username === '' && url.password === '' && url.hash === '';
  }, 'an http(s) URL without credentials or a fragment');

/** A JSON Schema 2020-12 document, checked by parse.ts (closed at every depth, linted, compiled). */
const jsonSchema = z.record(z.string(), z.unknown());

export const CONTRACT_STATUSES = ['current', 'supported', 'shadow', 'retired'] as const;

const contract = z.strictObject({
  version: z.int().min(1).max(1000),
  status: z.enum(CONTRACT_STATUSES),
  /** The arguments an agent sends. */
  args: jsonSchema,
  /** The receipt the executor answers with. */
  receipt: jsonSchema,
});

const rule = z.strictObject({
  /** The refusal's code when `require` does not hold (a business-rule refusal). */
  code: snakeCase('a rule code'),
  /** CEL over args, facts, open, agent and now that must hold. */
  require: celSource,
  /** What the refusal says to the agent and to people. */
  message: z.string().min(1).max(500),
});

const grant = z.strictObject({
  name: snakeCase('a grant name'),
  label: z.string().min(1).max(120),
  /** The values a key may be granted; without them any value of 1–40 letters, digits, ".", "_" and "-". */
  values: z
    .array(z.string().regex(/^[A-Za-z0-9_.-]{1,40}$/))
    .min(1)
    .max(100)
    .optional(),
});

const money = z.strictObject({
  /** An integer argument holding money in minor units. */
  amount: argumentName,
  /** The argument naming its ISO 4217 currency. */
  currency: argumentName,
});

export const definitionSchema = z.strictObject({
  name: snakeCase('the name'),
  title: z.string().min(1).max(80),
  /** The executor scope named in commands (`inventory`, `payments`). */
  scope: snakeCase('the scope'),
  contracts: z.array(contract).min(1).max(20),
  /** The team's resolver (Meaning): `POST {tenant, action, contractVersion, args}`. */
  resolve: serviceUrl,
  rules: z.array(rule).max(50),
  authority: z.strictObject({
    /** What an agent key may be granted for this action (`--grant warehouses=north`). */
    grants: z.array(grant).max(20),
    /** CEL over the key's grants (`agent.grants`) and the facts that must hold, else `not_authorized`. */
    require: celSource,
  }),
  /** The integer argument summed over the resource's open proposals (`open.total`). */
  claims: argumentName.optional(),
  summary: z.strictObject({
    /** How a proposal reads to a person: `{argument}` placeholders ("Refund {amountMinor} on {orderId}"). */
    template: z.string().min(1).max(200),
    /** Amounts shown in major units beside their currency. */
    money: z.array(money).max(10).optional(),
  }),
  /**
   * The approve button's label, with the summary's placeholders ("Approve refund of {amountMinor}");
   * else "Approve: " and the summary.
   */
  approveLabel: z.string().min(1).max(120).optional(),
  /** What one receipt is called ("refund", read as "Executed — refund re_123"); else the name in words. */
  receiptNoun: z.string().min(1).max(40).optional(),
  /** CEL over args and facts; the first level whose expression holds, else low. */
  risk: z.strictObject({ high: celSource.optional(), medium: celSource.optional() }).optional(),
  editing: z
    .strictObject({
      /** Arguments naming what the proposal acts on: shown, never edited. */
      locked: z.array(argumentName).max(50),
      money: z
        .array(z.strictObject({ ...money.shape, label: z.string().min(1).max(80) }))
        .max(10)
        .optional(),
      /** The live bound on one argument: `max` is CEL over args, facts and open giving a number. */
      limit: z
        .strictObject({
          field: argumentName,
          max: celSource,
          why: z.string().min(1).max(200),
          /** From this share of `max` on, the proposal is flagged "near a bound" for reviewers (0.8: 80 %). */
          near: z.number().gt(0).max(1).optional(),
        })
        .optional(),
    })
    .optional(),
  /** The routing policy a tenant starts with (lib/routing-rules.ts). */
  defaultRules: routingRulesSchema.optional(),
  /** The team's executor: approved commands are `POST`ed there. */
  executor: serviceUrl,
  /** CEL over args, facts and receipt, each of which must hold for a receipt to be accepted. */
  receiptMatches: z.array(celSource).max(20).optional(),
});

export type Definition = z.infer<typeof definitionSchema>;
export type DefinitionContract = Definition['contracts'][number];
