import 'server-only';
import { ErrorCode, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Database } from '@/db';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { type WireCode, wireCode } from '@/lib/errors/codes';
import { Refusal } from '@/lib/errors/refusal';
import { readJsonBody } from './body';
import { errorResponse } from './errors';
import { requireAgent } from './principal';

/**
 * The checks around the MCP SDK at /api/mcp (Streamable HTTP): who is calling is answered like
 * every API route (the API's error body), what was sent is answered in JSON-RPC, as MCP clients
 * expect from the endpoint. The protocol itself is the SDK's.
 */

/** A refusal of the message itself, answered as a JSON-RPC error without an id (none could be trusted). */
export class JsonRpcRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: { code: WireCode },
  ) {
    super(message);
    this.name = 'JsonRpcRefusal';
  }

  toResponse(): Response {
    const error = { code: this.code, message: this.message, ...(this.data ? { data: this.data } : {}) };
    return Response.json({ jsonrpc: '2.0', id: null, error }, { status: this.status });
  }
}

/** JSON-RPC's code for a server-defined transport error (the SDK's for 406, 413 and 415 too). */
const TRANSPORT_ERROR = -32000;

/**
 * An agent key and nothing else; a 401 carries the bearer challenge (RFC 6750 §3), so a client
 * knows to send a key instead of starting an OAuth flow. `invalid_token` only when one was sent.
 */
export async function requireMcpAgent(db: Database, request: Request): Promise<AgentPrincipal> {
  try {
    return await requireAgent(db, request);
  } catch (error) {
    if (!(error instanceof Refusal) || error.status !== 401) throw error;
    const challenge = request.headers.has('authorization')
      ? 'Bearer realm="countersign", error="invalid_token"'
      : 'Bearer realm="countersign"';
    throw error.with({}, { 'WWW-Authenticate': challenge });
  }
}

/**
 * The one JSON-RPC message of a request, read through the capped JSON reader: a body that is not
 * acceptable JSON is -32700 (400; 413 and 415 keep their status), a batch or anything but a
 * JSON-RPC 2.0 message is -32600 (400). `data.code` is the API's specific code where there is one.
 */
export async function readMcpMessage(request: Request): Promise<unknown> {
  let value: unknown;
  try {
    ({ value } = await readJsonBody(request));
  } catch (error) {
    if (!(error instanceof Refusal) || error.kind !== 'malformed') throw error;
    throw new JsonRpcRefusal(
      error.status,
      error.status === 400 ? ErrorCode.ParseError : TRANSPORT_ERROR,
      `Parse error: ${error.message}`,
      { code: wireCode(error.key) },
    );
  }
  // Current MCP has no batches (removed in 2025-06-18); one would run many calls on one rate-limit unit.
  if (Array.isArray(value)) {
    throw new JsonRpcRefusal(
      400,
      ErrorCode.InvalidRequest,
      'Invalid Request: send one JSON-RPC message per request; batches are not accepted.',
      { code: 'batch_not_supported' },
    );
  }
  if (!JSONRPCMessageSchema.safeParse(value).success) {
    throw new JsonRpcRefusal(
      400,
      ErrorCode.InvalidRequest,
      'Invalid Request: the body is not a JSON-RPC 2.0 message ("jsonrpc": "2.0" and a method, or a response).',
    );
  }
  return value;
}

/** Anything thrown at /api/mcp as its answer: a JsonRpcRefusal as JSON-RPC, the rest as the API's error body. */
export function mcpErrorResponse(error: unknown): Response {
  return error instanceof JsonRpcRefusal ? error.toResponse() : errorResponse(error);
}
