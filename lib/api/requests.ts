import { z } from 'zod';

/**
 * The one home of the operator API's request bodies (docs/design.md §12): the routes parse with these
 * schemas (lib/http/operator-route.ts), the domain functions take their types, and the dashboard's
 * client (lib/client/operator-api.ts) sends them. Only zod here, so client components may import it.
 * The agent API's envelope is intake's contract and lives with the Shape gate (lib/intake/envelope.ts).
 */

/** A request body: its closed schema, and how a body that fails it is refused (422 with issues). */
export type RequestBody<T> = {
  schema: z.ZodType<T>;
  /** The specific code of the 422 (`invalid_decision`). */
  code: string;
  message: string;
  /** What an absent body (no bytes at all) stands for; without it, a body is required. */
  whenAbsent?: T;
};

export const decisionRequestSchema = z
  .strictObject({
    decision: z.enum(['approve', 'reject']),
    payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a payload hash like sha256:<64 hex digits>'),
    reason: z.string().min(1).max(500).optional(),
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
export const REJECT_PRESETS: readonly string[] = ['Not requested by the customer', 'Wrong amount or quantity', 'Needs more evidence', 'Duplicate of another proposal'];

/** The edited arguments; the contract itself is checked by the gates the revision goes through. */
export const revisionRequestSchema = z.strictObject({ args: z.record(z.string(), z.unknown()) });

export type RevisionRequest = z.infer<typeof revisionRequestSchema>;

/** `POST /api/v1/proposals/:id/revisions`. */
export const revisionRequest: RequestBody<RevisionRequest> = {
  schema: revisionRequestSchema,
  code: 'invalid_revision',
  message: 'Send {"args": {…}} with the edited arguments.',
};

/** A body for a verb that takes nothing: no body, or an empty JSON object. */
export const emptyRequestSchema = z.strictObject({});

export type EmptyRequest = z.infer<typeof emptyRequestSchema>;

/** The spec of a body parsed with `schema`; one that fails it is a 422 with `code` and `message`. */
export function requestBody<T>(schema: z.ZodType<T>, code: string, message: string): RequestBody<T> {
  return { schema, code, message };
}

/** The spec of a verb that takes no fields; anything else is a 422 with `code`. */
export function noFields(code: string, message: string): RequestBody<EmptyRequest> {
  return { schema: emptyRequestSchema, code, message, whenAbsent: {} };
}

export type ExtendRequest = EmptyRequest;

/** `POST /api/v1/proposals/:id/extend`. */
export const extendRequest = noFields('invalid_extension', 'An extension takes no fields; send {} or no body.');

/** An optional word to the agent; the reason (what went stale or changed) is the proposal's own. */
export const reproposeRequestSchema = z.strictObject({ note: z.string().min(1).max(500).optional() });

export type ReproposeRequest = z.infer<typeof reproposeRequestSchema>;

/** `POST /api/v1/proposals/:id/repropose-request`. */
export const reproposeRequest: RequestBody<ReproposeRequest> = {
  ...requestBody(reproposeRequestSchema, 'invalid_repropose_request', 'Send {} or {"note": "…"} with at most 500 characters.'),
  whenAbsent: {},
};
