import { z } from 'zod';

/**
 * A routing rule as stored in `policies.rules` (data, never code). Parsed on every load, and the
 * one schema an admin's edit is validated with (lib/policy/save.ts): a row that does not validate
 * routes nothing but a deny. Closed at every depth.
 */

/** The most approvers a rule may ask for: more than a tenant's deciders would park proposals forever. */
export const MAX_APPROVALS = 5;
/** The longest aggregate window (a year and a day). */
export const MAX_WINDOW_HOURS = 24 * 366;
export const MAX_RULES = 100;

const aggregateBound = z.strictObject({
  /** Earlier proposals of the same action on the same resource created this many hours back count too. */
  windowHours: z.int().min(1).max(MAX_WINDOW_HOURS),
});

const bound = z
  .strictObject({
    /** A top-level argument of the action's contract (`amountMinor`, `quantity`). */
    field: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
    /** Matches when the value (plus the aggregate, if any) is greater than this. */
    above: z.number().min(0).optional(),
    /** Matches when the value is less than this. */
    below: z.number().min(0).optional(),
    aggregate: aggregateBound.optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.above === undefined) === (value.below === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['above'], message: 'a bound has exactly one of "above" or "below"' });
    }
    // A sum only grows as a request is split, so only "above" keeps splitting from lowering the bar.
    if (value.aggregate && value.below !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['aggregate'], message: 'an aggregate bound needs "above", not "below"' });
    }
  });

export const routingRuleSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
    description: z.string().max(500),
    /** Null matches every proposal of the action. */
    when: bound.nullable(),
    outcome: z.enum(['auto_approve', 'needs_approval', 'deny']),
    /** Distinct people needed: 1–5 for needs_approval, 0 otherwise. */
    approvals: z.int().min(0).max(MAX_APPROVALS),
    role: z.enum(['approver', 'admin']),
    /** Every approval under this rule must be signed with the approver's passkey (docs/passkeys.md). */
    passkey: z.literal(true).optional(),
  })
  .superRefine((rule, ctx) => {
    // A quorum of zero would approve on nobody's word.
    if (rule.outcome === 'needs_approval' && rule.approvals < 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvals'],
        message: `needs_approval needs 1 to ${MAX_APPROVALS} approvers`,
      });
    }
    if (rule.passkey && rule.outcome !== 'needs_approval') {
      ctx.addIssue({
        code: 'custom',
        path: ['passkey'],
        message: `${rule.outcome} asks nobody: only needs_approval can ask for a passkey`,
      });
    }
    if (rule.outcome !== 'needs_approval' && rule.approvals !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['approvals'],
        message: `${rule.outcome} asks nobody: approvals must be 0`,
      });
    }
  });

export const routingRulesSchema = z
  .array(routingRuleSchema)
  .max(MAX_RULES)
  .superRefine((rules, ctx) => {
    // The proposal page names its rule by id ("routed by rule X v3"): two rules cannot share one.
    const seen = new Set<string>();
    rules.forEach((rule, index) => {
      if (seen.has(rule.id))
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `rule id "${rule.id}" is used twice` });
      seen.add(rule.id);
    });
  });

export type RoutingRule = z.infer<typeof routingRuleSchema>;
export type RoutingBound = z.infer<typeof bound>;
