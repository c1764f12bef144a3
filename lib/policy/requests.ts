import { z } from 'zod';
import type { Routing } from '@/db/schema';
import type { RequestBody } from '@/lib/input/request-body';
import { type RoutingRule, routingRulesSchema } from '@/lib/routing-rules';

/**
 * The bodies and answers of the routing policy admin API (`/api/v1/admin/policies`). Only zod and
 * types here, so the dashboard's client imports them too.
 */

/** How long a proposal may wait for a decision under one policy. */
export const MIN_EXPIRY_HOURS = 1;
export const MAX_EXPIRY_HOURS = 720;

const expiryHours = z.int().min(MIN_EXPIRY_HOURS).max(MAX_EXPIRY_HOURS);

/** Who published a version: a person, or null for the built-in defaults and the demo seed. */
const author = z.strictObject({ name: z.string().max(200), email: z.string().max(320) }).nullable();

/** The most characters a change note may have, as sent (never trimmed). */
export const POLICY_NOTE_MAX = 500;

/**
 * Why the admin publishes: 1–500 characters, not blank. One issue per note: an empty one is too short, not also blank.
 */
const note = z
  .string()
  .min(1, { abort: true })
  .max(POLICY_NOTE_MAX)
  .regex(/\S/, { message: 'the note must not be blank' });

/**
 * One action's policy as `GET` answers it, and as `PUT` takes it back, edited. `version` is the
 * one the edit started from (0: the action's built-in defaults); `createdAt`, `createdBy` and
 * `note` describe that version and are ignored on the way in.
 */
export const policyEntrySchema = z.strictObject({
  action: z.string().min(1).max(64),
  version: z.int().min(0),
  rules: routingRulesSchema,
  expiryHours,
  createdAt: z.string().max(40).nullable().optional(),
  createdBy: author.optional(),
  note: z.string().max(POLICY_NOTE_MAX).nullable().optional(),
});

const entries = z.array(policyEntrySchema).min(1).max(100);

function eachActionOnce(document: { policies: PolicyEntry[] }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  document.policies.forEach((entry, index) => {
    if (seen.has(entry.action))
      ctx.addIssue({ code: 'custom', path: ['policies', index, 'action'], message: `"${entry.action}" appears twice` });
    seen.add(entry.action);
  });
}

/** What `PUT` publishes: the edited entries and the change note stored with each version it publishes. */
export const policyDocumentSchema = z.strictObject({ policies: entries, note }).superRefine(eachActionOnce);

/** What `POST …/plan` takes: the same document, the note optional (a plan publishes nothing). */
export const policyDraftSchema = z
  .strictObject({ policies: entries, note: note.optional() })
  .superRefine(eachActionOnce);

export type PolicyEntry = z.infer<typeof policyEntrySchema>;
export type PolicyDocument = z.infer<typeof policyDocumentSchema>;

/**
 * The routes read any JSON with the one body reader; the domain functions (save.ts, preview.ts)
 * parse it with the schemas above, so a refusal words custom checks in their own words.
 */
export const policyJsonBody: RequestBody<unknown> = {
  schema: z.unknown(),
  code: 'invalid_policy',
  message: 'Send the policy document as JSON.',
};

export const policyPreviewSchema = z.strictObject({
  action: z.string().min(1).max(64),
  rules: routingRulesSchema,
  expiryHours,
  sample: z.strictObject({ args: z.record(z.string(), z.unknown()) }),
});

export type PolicyPreviewRequest = z.infer<typeof policyPreviewSchema>;

/** One action's current policy as the API answers it (dates as ISO strings). */
export type PolicyView = {
  action: string;
  version: number;
  rules: RoutingRule[];
  expiryHours: number;
  createdAt: string | null;
  createdBy: { name: string; email: string } | null;
  /** The change note the version was published with; null for the built-in defaults and the demo seed. */
  note: string | null;
};

export type PolicyChange = {
  action: string;
  previousVersion: number;
  version: number;
  before: { rules: RoutingRule[]; expiryHours: number };
  after: { rules: RoutingRule[]; expiryHours: number };
};

/** What `PUT` answers: the versions it published, the actions it left alone, and the document now. */
export type PolicySaveResult = { saved: PolicyChange[]; unchanged: string[]; policies: PolicyView[] };

/** What the draft would do with the sample, computed by the router itself. */
export type PolicyPreview = {
  action: string;
  routing: Routing;
  /** The deciding rule's position (0-based) and description; null when no rule matched. */
  rule: { index: number; id: string; description: string } | null;
  expiryHours: number;
  /** The Meaning detail of the sample's resource ("filter-blue in acme, warehouse north, …"). */
  resource: string;
  /** Aggregate bounds were summed over the tenant's real proposals as of `evaluatedAt`. */
  evaluatedAt: string;
  usesAggregates: boolean;
};
