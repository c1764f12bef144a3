import { z } from 'zod';

/** The answers of the grants API (docs/grants.md). */
export const grantSchema = z.strictObject({
  id: z.string().describe('`g_…`'),
  proposalId: z.string().describe('The approved proposal it was made from.'),
  grantedBy: z.strictObject({ id: z.string(), name: z.string().nullable() }),
  action: z.string(),
  agentKeyId: z.string(),
  agentName: z.string(),
  resourceKey: z.string().nullable().describe('The one resource it covers; null: any resource of the action.'),
  rule: z.string().describe('The routing rule a covered proposal must be routed by.'),
  policyVersion: z.number().int(),
  currency: z.string().nullable().describe('For money: the currency covered proposals must have.'),
  maxCount: z.number().int(),
  maxTotalMinor: z.number().int().nullable(),
  usedCount: z.number().int(),
  usedTotalMinor: z.number().int(),
  reason: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }),
  state: z
    .enum(['active', 'expired', 'used_up', 'revoked', 'role_changed', 'granter_removed', 'policy_changed'])
    .describe('Only `active` covers anything.'),
  endedAt: z.iso.datetime({ offset: true }).nullable(),
  endedBy: z.string().nullable(),
  endNote: z.string().nullable(),
});

export const grantListSchema = z.strictObject({ grants: z.array(grantSchema), nextCursor: z.string().nullable() });
