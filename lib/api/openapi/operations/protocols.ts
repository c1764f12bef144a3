import { executionAnswerSchema, signedCommandSchema } from '@/lib/api/responses/executor';
import { mcpErrorSchema, mcpMessageSchema, mcpResponseSchema } from '@/lib/api/responses/mcp';
import type { WireCode } from '@/lib/errors/codes';
import { component } from '../components';
import type { ErrorCase, Operation } from '../operation';
import { MALFORMED_BODY_CODES } from '../standard-errors';

/** The executor (docs/design.md §7) and the MCP server: each speaks its own protocol over HTTP. */

/**
 * A refusal of the message itself, answered in JSON-RPC as MCP clients expect; `codes` are its `error.data.code`
 * values.
 */
const jsonRpcError = (status: number, what: string, codes: readonly WireCode[] = []): ErrorCase => ({
  status,
  codes,
  body: { json: component(mcpErrorSchema, 'McpError'), description: `A JSON-RPC error without an id: ${what}.` },
});

export const protocolOperations: Operation[] = [
  {
    operationId: 'executeCommand',
    method: 'post',
    path: '/api/executor/{scope}',
    tag: 'Executor',
    summary: 'Execute a signed command (the worker calls this, not clients)',
    description:
      "The worker posts each approved proposal's command to the executor of its action's scope (`inventory`, " +
      '`payments`). The signed command is the credential: its key, type, issuer, audience, scope, lifetime and ' +
      'payload hash are checked, it is consumed exactly once, the preconditions are checked again against live ' +
      "state, and the one write is made with the command's idempotency key. A command already consumed answers " +
      "what was recorded for it. While the tenant's executions are paused it answers `503 executions_paused` and " +
      'is not consumed.',
    access: 'command',
    message: {
      mediaType: 'application/jose',
      schema: component(signedCommandSchema, 'SignedCommand', 'input'),
      description: 'The compact JWS, at most 64 KiB.',
    },
    success: [
      {
        status: 200,
        description:
          'The outcome: `succeeded` with the receipt, `failed` with a code and reason (nothing was written), or ' +
          '`outcome_unknown` (reconciliation will ask the system of record).',
        body: { json: component(executionAnswerSchema, 'ExecutionAnswer') },
      },
    ],
    errors: [
      { status: 400, codes: ['malformed'] },
      {
        status: 401,
        codes: [
          'alg_not_allowed',
          'key_header_not_allowed',
          'unknown_kid',
          'bad_signature',
          'wrong_typ',
          'wrong_issuer',
          'expired',
          'not_yet_valid',
        ],
      },
      { status: 403, codes: ['wrong_audience', 'action_not_in_scope'] },
      { status: 404, codes: ['unknown_scope', 'unknown_command'] },
      { status: 409, codes: ['hash_mismatch'] },
      { status: 413, codes: ['too_large'] },
      { status: 415, codes: ['unsupported_media_type'] },
      { status: 503, codes: ['executions_paused'] },
    ],
  },
  {
    operationId: 'mcpMessage',
    method: 'post',
    path: '/api/mcp',
    tag: 'MCP',
    access: 'agent',
    summary: 'Send one MCP message (Streamable HTTP, stateless, JSON responses)',
    description:
      'The Model Context Protocol server: one tool per action the key may propose (its current contract version ' +
      'as the input schema) and a status tool. A tool call proposes through the same gates as `POST ' +
      '/api/v1/proposals`; a refusal is a tool result with `isError`, whose text says what to repair. Each ' +
      "message spends one unit of the key's rate limit. Send `Accept: application/json, text/event-stream`. The " +
      'server is stateless (no session, no server-initiated stream): `GET` and `DELETE` answer 405 with `Allow: ' +
      'POST` after the same checks of the caller.',
    message: {
      mediaType: 'application/json',
      schema: component(mcpMessageSchema, 'McpMessage', 'input'),
      description: 'One JSON-RPC 2.0 message of at most 64 KiB; a batch is refused.',
    },
    success: [
      {
        status: 200,
        description: 'The JSON-RPC response to a request.',
        body: { json: component(mcpResponseSchema, 'McpResponse') },
      },
      { status: 202, description: 'A notification or a response was accepted; there is nothing to answer.' },
    ],
    errors: [
      jsonRpcError(
        400,
        '-32700 for a body that is not acceptable JSON, -32600 for a batch or anything but one JSON-RPC 2.0 ' +
          'message, -32000 for an unsupported `MCP-Protocol-Version`',
        [...MALFORMED_BODY_CODES, 'batch_not_supported'],
      ),
      { status: 401, codes: ['unauthenticated'], headers: ['WWW-Authenticate'] },
      { status: 403, codes: ['cross_origin'] },
      jsonRpcError(406, '-32000, `Accept` must name both application/json and text/event-stream'),
      jsonRpcError(413, '-32000, the body is over 64 KiB', ['too_large']),
      jsonRpcError(415, '-32000, the body is not application/json', ['unsupported_media_type']),
      { status: 429, codes: ['rate_limited'], headers: ['Retry-After'] },
    ],
  },
];
