import { z } from 'zod';
import { type EmptyRequest, noFields, type RequestBody, requestBody } from '@/lib/input/request-body';
import { signedDecisionSchema } from '@/lib/passkeys/requests';

/**
 * The request bodies of the operator API's decisions on a proposal (docs/design.md §12: decide,
 * extend, revise, ask to propose again): the routes parse with these schemas
 * (lib/http/operator-route.ts), the domain functions take their types, and the dashboard's client
 * (lib/client/operator-api.ts) sends them. Only zod here, so client components may import it. The
 * admin bodies live with their folders (lib/admin/requests.ts, …); the agent API's envelope, read by
 * the Shape gate, is lib/input/envelope.ts.
 */

export const decisionRequestSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject']),
    payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a payload hash like sha256:<64 hex digits>'),
    reason: z.string().min(1).max(500).optional(),
    /** The statement and the passkey's assertion over it (docs/passkeys.md), when the decision is signed. */
    passkey: signedDecisionSchema.optional(),
  })
  .refine((value) => value.decision === 'approve' || value.reason !== undefined, {
    path: ['reason'],
    message: 'a rejection needs a reason',
  });

export type DecisionRequest = z.infer<typeof decisionRequestSchema>;

/** `POST /api/v1/proposals/:id/decisions`. */
export const decisionRequest: RequestBody<DecisionRequest> = {
  schema: decisionRequestSchema,
  code: 'invalid_decision',
  message: 'The decision is not valid.',
};

/** A rejection's reason: one of these, or free text of 1–500 characters. */
export const REJECT_PRESETS: readonly string[] = [
  'Not requested by the customer',
  'Wrong amount or quantity',
  'Needs more evidence',
  'Duplicate of another proposal',
];

/** The preset offered first when a proposal cites evidence the gates flagged as suspicious. */
export const SUSPICIOUS_EVIDENCE_PRESET = 'Cites suspicious evidence (possible prompt injection)';

/** The reject presets for proposals with these flags: the suspicious-evidence one first when any carries that flag. */
export function rejectPresets(flagKinds: readonly string[]): readonly string[] {
  return flagKinds.includes('suspicious_evidence') ? [SUSPICIOUS_EVIDENCE_PRESET, ...REJECT_PRESETS] : REJECT_PRESETS;
}

/** The most characters a revision's reason may have, as sent (never trimmed). */
export const REVISION_REASON_MAX = 500;

/**
 * The edited arguments, and why (the operator's words, shown beside the revision); the contract
 * itself is checked by the gates the revision goes through.
 */
export const revisionRequestSchema = z.strictObject({
  args: z.record(z.string(), z.unknown()),
  // One issue per reason: an empty one is too short, not also blank.
  reason: z.string().min(1, { abort: true }).max(REVISION_REASON_MAX).regex(/\S/),
});

export type RevisionRequest = z.infer<typeof revisionRequestSchema>;

/** `POST /api/v1/proposals/:id/revisions`. */
export const revisionRequest: RequestBody<RevisionRequest> = {
  schema: revisionRequestSchema,
  code: 'invalid_revision',
  message: 'Send {"args": {…}, "reason": "…"} with the edited arguments and why, in 1–500 characters.',
};

export type ExtendRequest = EmptyRequest;

/** `POST /api/v1/proposals/:id/extend`. */
export const extendRequest = noFields('invalid_extension', 'An extension takes no fields; send {} or no body.');

/** `POST /api/v1/proposals/:id/recheck`. */
export const recheckRequest = noFields('invalid_recheck', 'A re-check takes no fields; send {} or no body.');

/** An optional word to the agent; the reason (what went stale or changed) is the proposal's own. */
export const reproposeRequestSchema = z.strictObject({ note: z.string().min(1).max(500).optional() });

export type ReproposeRequest = z.infer<typeof reproposeRequestSchema>;

/** `POST /api/v1/proposals/:id/repropose-request`. */
export const reproposeRequest: RequestBody<ReproposeRequest> = {
  ...requestBody(
    reproposeRequestSchema,
    'invalid_repropose_request',
    'Send {} or {"note": "…"} with at most 500 characters.',
  ),
  whenAbsent: {},
};
