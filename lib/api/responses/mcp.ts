import { z } from 'zod';

/**
 * The JSON-RPC 2.0 bodies of the MCP server at /api/mcp (Streamable HTTP, stateless, JSON
 * responses). The messages themselves are the Model Context Protocol's (its tools are listed by
 * `tools/list`); these schemas say only what HTTP clients see of them.
 */

const id = z.union([z.string(), z.number()]);

/** One message per request: a request, a notification or a response; batches are refused. */
export const mcpMessageSchema = z
  .looseObject({ jsonrpc: z.literal('2.0'), id: id.optional(), method: z.string().optional() })
  .describe('One JSON-RPC 2.0 message of the Model Context Protocol.');

/** The answer to a request: its `result`, or a JSON-RPC `error` (a tool's refusal is a result with `isError`). */
export const mcpResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id,
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.looseObject({ code: z.int(), message: z.string() }).optional(),
});

/** A refusal of the message or of the HTTP exchange itself, without an id (none could be trusted). */
export const mcpErrorSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.null(),
  error: z.looseObject({
    code: z.int().describe('-32700 parse error, -32600 invalid request, -32000 a transport error.'),
    message: z.string(),
    data: z
      .object({
        code: z.string().describe("The API's specific code, where there is one (`invalid_json`, `too_large`, …)."),
      })
      .optional(),
  }),
});
