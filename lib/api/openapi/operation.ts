import type { z } from 'zod';
import { type WireCode, wireCode } from '@/lib/errors/codes';
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
  /** Nothing in the headers: the signed command in the body is the credential (the executor). */
  | 'command'
  /** A session with the admin role in the tenant the dashboard shows (`cs_tenant`). */
  | 'admin';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The document's tags, each with what its operations are for. */
export const TAGS = {
  'Agent API':
    'For agents, with an agent key: propose an action, read what became of it, read the contracts. Reads of a ' +
    'proposal and of the contracts take a dashboard session too.',
  'Operator API':
    'For people, with a dashboard session: decide, extend, revise and re-request proposals, read the queue, ' +
    'export the audit trail, prove an email address. Mutations need a same-origin `Origin`.',
  'Admin API':
    "For a tenant's admins, with a dashboard session in the tenant the dashboard shows: agent keys, members, " +
    'contract rollout, action definitions, notifications, passkeys, the emergency stop and routing policies.',
  Public: 'No credentials: the public keys, health, this document, and accepting an invitation.',
  Executor:
    'Called by the worker with signed commands, not by clients; an executor of your own verifies the same ' +
    'commands with the public keys.',
  MCP: 'The Model Context Protocol server for agents, with an agent key.',
} as const;

/** A response header, named as in headers.ts. */
export type HeaderName = 'Retry-After' | 'Deprecation' | 'Sunset' | 'Content-Disposition' | 'WWW-Authenticate';

export type Success = {
  status: number;
  description: string;
  /** A JSON body's schema; `text` is a download in the named media types; none: an empty body. */
  body?: { json: z.ZodType } | { text: readonly string[] };
  headers?: readonly HeaderName[];
};

/**
 * An error status this operation answers beyond the standard ones, with its possible codes: in the
 * one error body (`Error`), or in the body a protocol prescribes (`body`, e.g. JSON-RPC's at /api/mcp).
 */
export type ErrorCase = {
  status: number;
  /** Codes of lib/errors/codes.ts only: a code the table lacks is a type error here. */
  codes: readonly WireCode[];
  headers?: readonly HeaderName[];
  body?: { json: z.ZodType; description: string };
};

export type QueryParameter = { name: string; description: string; values?: readonly string[] };

export type Operation = {
  operationId: string;
  method: Method;
  /** As OpenAPI spells it: `/api/v1/proposals/{id}`. */
  path: string;
  tag: keyof typeof TAGS;
  summary: string;
  /** What a client needs beyond the summary: who may call, what it changes, what to do next. */
  description: string;
  access: Access;
  /** A JSON body read by the one body reader (lib/http/body.ts). */
  body?: {
    schema: z.ZodType;
    /** The 422 code of a body that fails the schema (lib/input/request-body.ts `RequestBody.code`). */
    invalidCode: WireCode;
    /** An absent body stands for an empty one. */
    optional?: boolean;
    /** A same-origin `Origin` is required (the dashboard's mutations, docs/design.md §11). */
    sameOrigin: boolean;
  };
  /**
   * A body the route reads itself rather than through the JSON body reader (the executor's compact
   * JWS, an MCP message): no standard errors are added for it, so `errors` lists them.
   */
  message?: { mediaType: string; schema: z.ZodType; description: string };
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
  {
    sameOrigin = true,
    schema = spec.schema,
    invalidCode = wireCode(spec.code),
  }: { sameOrigin?: boolean; schema?: z.ZodType; invalidCode?: WireCode } = {},
): NonNullable<Operation['body']> {
  return { schema: component(schema, id, 'input'), invalidCode, optional: spec.whenAbsent !== undefined, sameOrigin };
}
