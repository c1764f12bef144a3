import { z } from 'zod';

/**
 * A routing rule as stored in `policies.rules` (data, never code). Parsed on every load: a row
 * that does not validate routes nothing but a deny.
 */
const aggregateBound = z.strictObject({
  /** Earlier proposals of the same action on the same resource created this many hours back count too. */
  windowHours: z.int().min(1).max(24 * 366),
});

const bound = z.strictObject({
  /** A top-level argument of the action's contract (`amountMinor`, `quantity`). */
  field: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/),
  above: z.number(),
  aggregate: aggregateBound.optional(),
});

export const routingRuleSchema = z
  .strictObject({
    id: z.string().min(1).max(64),
    description: z.string().max(500),
    /** Null matches every proposal of the action. */
    when: bound.nullable(),
    outcome: z.enum(['auto_approve', 'needs_approval', 'deny']),
    approvals: z.int().min(0).max(20),
    role: z.enum(['approver', 'admin']),
  })
  // A quorum of zero would approve on nobody's word.
  .refine((rule) => rule.outcome !== 'needs_approval' || rule.approvals >= 1, { message: 'needs_approval needs at least one approver', path: ['approvals'] });

export const routingRulesSchema = z.array(routingRuleSchema).max(100);

export type RoutingRule = z.infer<typeof routingRuleSchema>;
export type RoutingBound = z.infer<typeof bound>;
