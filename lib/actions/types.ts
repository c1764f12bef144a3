import type { z } from 'zod';
import type { Facts, RoutingAggregate } from '@/db/schema';
import type { ErrorKey } from '@/lib/errors/codes';
import type { FieldIssue } from '@/lib/input/field-issues';
import type { RoutingRule } from '@/lib/routing-rules';
import type { SystemsClient, SystemsWriteClient, WriteResponse } from '@/lib/systems/client';

export type ContractStatus = 'current' | 'supported' | 'shadow' | 'retired';

/** An action's arguments, as a contract version's schema outputs them. */
export type ActionArgs = Record<string, unknown>;

/** A contract's answer to an agent's arguments: the normalized arguments, or every issue with them. */
export type ArgsCheck<Args extends ActionArgs = ActionArgs> =
  | { ok: true; args: Args }
  | { ok: false; issues: FieldIssue[] };

export type ContractVersion<Args extends ActionArgs = ActionArgs> = {
  version: number;
  status: ContractStatus;
  /**
   * The arguments against the contract, closed at every depth: never coerced or trimmed; defaults a
   * contract applies become part of the normalized payload (and so of its hash).
   */
  check(args: unknown): ArgsCheck<Args>;
  /** The arguments' JSON Schema (2020-12) as agents are shown it. */
  inputSchema: Record<string, unknown>;
  /** A module's contract written in zod: the static OpenAPI document names it as a component. */
  zod?: z.ZodType<Args>;
  /** A tenant's rollout (lib/contracts/rollout.ts): when this version entered its status, if known. */
  since?: Date | null;
  /** A supported version's announced end (RFC 8594 `Sunset`), set by the tenant's admin. */
  sunsetAt?: Date | null;
};

export type { RoutingRule } from '@/lib/routing-rules';

/** What Meaning learned from the system of record, kept with the proposal and shown to people. */
export type Resolution = {
  /** The one resource the proposal acts on (`order:ord_1842`): proposals on it are serialized. */
  resourceKey: string;
  /** Facts read at intake, shown beside the payload (never part of it). */
  facts: Facts;
  /** One line for the Meaning check ("ord_1842 in acme, refundable 49.99 USD"). */
  detail: string;
};

/**
 * A rule's refusal: its code is a row of lib/errors/codes.ts like any other; a definition's rule is
 * `rule_not_met` with the rule's own code beside it.
 */
export type Violation = { code: ErrorKey; message: string; ruleCode?: string };

/** The proposing agent key as rules read it. */
export type RuleAgent = { id: string; grants: Record<string, string[]> };

/**
 * What the open proposals (pending, approved, executing) on a resource hold of it: how many, and
 * the sum of the action's `claimField` over them (0 when it has none), summed in SQL.
 */
export type OpenClaims = { count: number; total: number };

/**
 * A grant an agent key may carry for this action (read by `authorize`), as the key form shows it.
 * `values` lists the allowed values when the action knows them all; otherwise any value of
 * 1–40 characters of letters, digits, ".", "_" and "-" is allowed (GRANT_VALUE).
 */
export type GrantSpec = { name: string; label: string; values?: string[] };

/** A grant value when the action does not list its values. */
export const GRANT_VALUE = /^[A-Za-z0-9_.-]{1,40}$/;

/** The arguments any of an action's contract versions accepts: the union of their schemas' outputs. */
export type ArgsOfContracts<Contracts extends readonly ContractVersion[]> =
  Contracts[number] extends ContractVersion<infer Args> ? Args : never;

/**
 * One action: everything the generic pipeline, executor and UI need to know about it, typed by the
 * arguments its contract versions accept (`ActionModule<ArgsOfContracts<typeof CONTRACTS>>`).
 * The pipeline hands a module only arguments one of its contracts parsed, and holds every module as
 * `ActionModule` (arguments of no particular shape): the functions taking arguments are methods,
 * whose parameters TypeScript compares both ways, so a typed module is one without a cast.
 */
export type ActionModule<Args extends ActionArgs = ActionArgs> = {
  name: string;
  /** A tenant's declared action: the version of its definition (docs/actions.md); none for a shipped module. */
  definitionVersion?: number;
  /** The executor family that runs it (`inventory`, `payments`). */
  scope: string;
  title: string;
  contracts: readonly ContractVersion<Args>[];
  /** The executor's receipt as JSON Schema (2020-12): validated on every execution. */
  outputSchema: Record<string, unknown>;
  /** A module's receipt written in zod: the static OpenAPI document names it as a component. */
  output?: z.ZodType<Record<string, unknown>>;
  /** A one-line sentence naming the effect, shown first everywhere. */
  summarize(args: Args, facts?: Facts): string;
  /** Words beside raw argument values in the review ("4999" → "49.99 USD"). */
  argHints?(args: Args): Record<string, string>;
  /**
   * The earlier proposals an aggregate bound summed, in words ("With 2 earlier refunds on ord_1843
   * in the last 24 h: 300.00 EUR in all"); without it a generic sentence is shown.
   */
  describeAggregate?(args: Args, aggregate: RoutingAggregate): string;
  /** The label of the approve button: it names the effect, never just "Approve". */
  approveLabel(args: Args): string;
  /**
   * What one of its receipts is called ("refund", read as "Executed — refund re_123"); without it, the action's name in
   * words.
   */
  receiptNoun?(args: Args): string;
  /** Meaning: find the resource inside the tenant; undefined when missing or another tenant's. */
  resolve(
    systems: SystemsClient,
    tenantId: string,
    args: Args,
    contractVersion?: number,
  ): Promise<Resolution | undefined>;
  /**
   * The integer argument open proposals on a resource claim of it together (a refund's `amountMinor`): summed for
   * `checkRules`.
   */
  claimField?: string;
  /** Business rules against live state, including what this resource's open proposals claim. */
  checkRules(args: Args, resolution: Resolution, open: OpenClaims, agent?: RuleAgent): Violation | undefined;
  /**
   * Given what checkRules was given, how close the arguments come to the action's own limit, in
   * words with the values ("49.00 of 50.00 USD still refundable"), or nothing when not close. Shown
   * as a "near a bound" flag (lib/proposals/flags.ts); never a refusal.
   */
  nearLimit?(args: Args, resolution: Resolution, open: OpenClaims): string | undefined;
  /** The grants `authorize` reads; a key for this action may carry only these. None: the action reads no grants. */
  grants?: GrantSpec[];
  /** Authority beyond the action list: may this key's grants touch the resolved resource? */
  authorize(grants: Record<string, string[]>, resolution: Resolution): boolean;
  risk(args: Args): 'low' | 'medium' | 'high';
  /** How a change in the resource's facts reads to a person ("order balance changed from … to …"). */
  describeChange?(before: Facts, after: Facts): string | undefined;
  defaultRules: RoutingRule[];
  defaultExpiryHours: number;
  /**
   * The effect: one write to the system of record, keyed by the command's idempotency key. `facts`
   * are the live ones read just before (e.g. a hold's warehouse comes from the catalog).
   */
  execute(request: EffectRequest<Args>): Promise<WriteResponse>;
  /** Reconciliation: did this command commit? Throws SystemsUnavailableError when the system can't answer. */
  lookupReceipt(request: ReceiptLookup): Promise<{ found: true; receipt: unknown } | { found: false }>;
  /** The receipt against the output schema AND the request (same operation, resource, amount, key). */
  validateReceipt(receipt: unknown, args: Args, facts: Facts, idempotencyKey: string): ReceiptCheck;
  /**
   * How operators edit its arguments (locked identity fields, money, live limits); without it every field is a plain
   * input.
   */
  editing?: EditingSpec<Args>;
  /**
   * The resource key a search term names (`ord_1843` → `order:ord_1843`), for the Proposals list; undefined when it
   * cannot be one.
   */
  resourceKeyFor?(term: string): string | undefined;
};

/** What an action's one effect is given: the command as signed, and what was read just before. */
export type EffectRequest<Args extends ActionArgs = ActionArgs> = {
  /** The scope's write client, for a module writing to a system of record (made on first use). */
  client: () => SystemsWriteClient;
  args: Args;
  facts: Facts;
  idempotencyKey: string;
  /** The compact JWS of the command being executed, and its id. */
  command: { id: string; jws: string };
  signal: AbortSignal;
};

/** What reconciliation asks by: the command that may have committed, and its idempotency key. */
export type ReceiptLookup = { client: () => SystemsWriteClient; idempotencyKey: string; commandId: string };

/** The most a numeric argument may be now (from live facts minus the resource's other open proposals), and why. */
export type EditLimit = { field: string; max: number; why: string };

/**
 * How an operator edits this action's arguments in a revision. The form and reviseProposal read
 * it; neither names an action.
 */
export type EditingSpec<Args extends ActionArgs = ActionArgs> = {
  /**
   * Arguments naming what the proposal acts on (an order, its currency): shown, never edited; a revision changing one
   * is refused.
   */
  locked: readonly string[];
  /**
   * Integer arguments holding money in minor units: entered in major units beside the currency another argument names.
   */
  money?: readonly { field: string; currencyField: string; label: string }[];
  /** The live bound on an argument, shown beside it and enforced in the form (the rules still enforce it at intake). */
  limit?(args: Args, resolution: Resolution, open: OpenClaims): EditLimit | undefined;
};

export type ReceiptCheck = { ok: true; receipt: Record<string, unknown> } | { ok: false; reason: string };
