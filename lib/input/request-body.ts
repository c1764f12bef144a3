import { z } from 'zod';
import type { ApiErrorKey } from '@/lib/errors/codes';

/**
 * How a route declares its JSON body: each folder's request bodies (lib/decisions/requests.ts,
 * lib/admin/requests.ts, …) are made of these, and lib/http/body.ts reads a body by one. Only zod
 * here, so the domain and client components may import it.
 */

/** A request body: its closed schema, and how a body that fails it is refused (422 with issues). */
export type RequestBody<T> = {
  schema: z.ZodType<T>;
  /** The specific code of the 422 (`invalid_decision`). */
  code: ApiErrorKey;
  message: string;
  /** What an absent body (no bytes at all) stands for; without it, a body is required. */
  whenAbsent?: T;
};

/** A body for a verb that takes nothing: no body, or an empty JSON object. */
export const emptyRequestSchema = z.strictObject({});

export type EmptyRequest = z.infer<typeof emptyRequestSchema>;

/** The spec of a body parsed with `schema`; one that fails it is a 422 with `code` and `message`. */
export function requestBody<T>(schema: z.ZodType<T>, code: ApiErrorKey, message: string): RequestBody<T> {
  return { schema, code, message };
}

/** The spec of a verb that takes no fields; anything else is a 422 with `code`. */
export function noFields(code: ApiErrorKey, message: string): RequestBody<EmptyRequest> {
  return { schema: emptyRequestSchema, code, message, whenAbsent: {} };
}
