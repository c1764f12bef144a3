import { z } from 'zod';
import { PROPOSAL_ID } from '@/lib/ids';
import type { RequestBody } from '@/lib/input/request-body';

/**
 * The request bodies of standing grants (docs/grants.md). Only zod here, so the dashboard's
 * approve dialog sends exactly what the route parses.
 */

/** The longest a grant may stand: 8 hours. */
export const GRANT_MAX_MINUTES = 480;
/** The most proposals one grant may approve. */
export const GRANT_MAX_COUNT = 1000;
export const GRANT_REASON_MAX = 500;

// Never trimmed: a blank reason is refused, not cleaned up.
const reason = z.string().min(1, { abort: true }).max(GRANT_REASON_MAX).regex(/\S/, 'must not be blank');

export const grantRequestSchema = z.strictObject({
  proposalId: z.string().regex(PROPOSAL_ID, 'a proposal id like prp_…'),
  minutes: z.int().min(1).max(GRANT_MAX_MINUTES),
  maxCount: z.int().min(1).max(GRANT_MAX_COUNT),
  /**
   * For an action that moves money: the most all covered proposals may add up to, in minor units of the source
   * proposal's currency.
   */
  maxTotalMinor: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  sameResource: z.boolean(),
  reason,
});

export type GrantRequest = z.infer<typeof grantRequestSchema>;

/** `POST /api/v1/grants`. */
export const grantRequest: RequestBody<GrantRequest> = {
  schema: grantRequestSchema,
  code: 'invalid_grant',
  message:
    `Send {"proposalId", "minutes" (1–${GRANT_MAX_MINUTES}), "maxCount" (1–${GRANT_MAX_COUNT}), ` +
    `"maxTotalMinor"? (money only), "sameResource", "reason" (1–${GRANT_REASON_MAX} characters)}.`,
};

export const revokeRequestSchema = z.strictObject({ reason: reason.optional() });

export type RevokeRequest = z.infer<typeof revokeRequestSchema>;

/** `POST /api/v1/grants/:id/revoke`: an optional word on why. */
export const revokeRequest: RequestBody<RevokeRequest> = {
  schema: revokeRequestSchema,
  code: 'invalid_revocation',
  message: `A revocation takes an optional {"reason"} of 1–${GRANT_REASON_MAX} characters; send {} or no body.`,
  whenAbsent: {},
};
