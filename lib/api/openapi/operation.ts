import type { z } from 'zod';
import type { RequestBody } from '@/lib/input/request-body';
import { component } from './components';

/**
 * One documented operation, as data: the OpenAPI document is built from these (document.ts), and
 * the errors every route of its kind can answer are added from `access` and `body` (standard-errors.ts).
 */

/** Who may call: decides the security scheme and the 401/403 every such route can answer. */
export type Access =
  /** No credentials. */
  | 'public'
  /** An agent key (`Authorization: Bearer`). */
  | 'agent'
  /** An agent key, or a dashboard session without one. */
  | 'agent_or_session'
  /** A dashboard session; an Authorization header is refused. */
  | 'session'
  /** A session with the admin role in the tenant the dashboard shows (`cs_tenant`). */
  | 'admin';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A response header, named as in headers.ts. */
export type HeaderName = 'Retry-After' | 'Deprecation' | 'Sunset' | 'Content-Disposition';

export type Success = {
  status: number;
  description: string;
  /** A JSON body's schema; `text` is a download in the named media types. */
  body: { json: z.ZodType } | { text: readonly string[] };
  headers?: readonly HeaderName[];
};

/** An error status this operation answers beyond the standard ones, with its possible codes. */
export type ErrorCase = { status: number; codes: readonly string[]; headers?: readonly HeaderName[] };

export type QueryParameter = { name: string; description: string; values?: readonly string[] };

export type Operation = {
  operationId: string;
  method: Method;
  /** As OpenAPI spells it: `/api/v1/proposals/{id}`. */
  path: string;
  tag: 'Agent API' | 'Operator API' | 'Admin API' | 'Public';
  summary: string;
  description?: string;
  access: Access;
  /** A JSON body read by the one body reader (lib/http/body.ts). */
  body?: {
    schema: z.ZodType;
    /** The 422 code of a body that fails the schema (lib/input/request-body.ts `RequestBody.code`). */
    invalidCode: string;
    /** An absent body stands for an empty one. */
    optional?: boolean;
    /** A same-origin `Origin` is required (the dashboard's mutations, docs/design.md §11). */
    sameOrigin: boolean;
  };
  query?: readonly QueryParameter[];
  success: readonly Success[];
  errors?: readonly ErrorCase[];
};

/**
 * The documented body of a route that reads `spec` (lib/input/request-body.ts `RequestBody`): its
 * schema as component `id`, its 422 code and whether no body stands for one, all from the spec the
 * route itself reads with. `schema`/`invalidCode` only where the route reads raw JSON and its
 * domain function parses it (the policy editor).
 */
export function bodyOf(
  spec: RequestBody<unknown>,
  id: string,
  { sameOrigin = true, schema = spec.schema, invalidCode = spec.code }: { sameOrigin?: boolean; schema?: z.ZodType; invalidCode?: string } = {},
): NonNullable<Operation['body']> {
  return { schema: component(schema, id, 'input'), invalidCode, optional: spec.whenAbsent !== undefined, sameOrigin };
}
