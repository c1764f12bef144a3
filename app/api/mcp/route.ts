import { consumeRateLimit } from '@/lib/agents/rate-limit';
import { getDb } from '@/lib/database';
import { env } from '@/lib/env';
import { mcpErrorResponse, readMcpMessage, requireMcpAgent } from '@/lib/http/mcp-transport';
import { otherMethods } from '@/lib/http/methods';
import { assertNoForeignOrigin, publicOrigin } from '@/lib/http/origin';
import { handleMcpRequest } from '@/lib/mcp/server';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * The MCP server (Streamable HTTP, stateless, JSON responses): no foreign Origin (403, before
 * anything else), an agent key and nothing else (401 with a bearer challenge), the key's rate
 * limit, one JSON-RPC message through the capped JSON reader, then one MCP message exchange.
 */
export async function POST(request: Request) {
  try {
    assertNoForeignOrigin(request);
    const db = await getDb();
    const agent = await requireMcpAgent(db, request);
    await consumeRateLimit(db, `agent:${agent.keyId}`, env().AGENT_RATE_LIMIT_PER_MINUTE);
    const message = await readMcpMessage(request);
    return await handleMcpRequest(
      { db, agent, systems: systemsClient(), origin: publicOrigin(request), signal: request.signal },
      request,
      message,
    );
  } catch (error) {
    return mcpErrorResponse(error);
  }
}

/** Stateless: no server-initiated stream to open (GET) and no session to end (DELETE). */
async function methodNotAllowed(request: Request) {
  try {
    assertNoForeignOrigin(request);
    await requireMcpAgent(await getDb(), request);
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
      { status: 405, headers: { Allow: 'POST' } },
    );
  } catch (error) {
    return mcpErrorResponse(error);
  }
}

export const GET = methodNotAllowed;
export const DELETE = methodNotAllowed;

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { PUT, PATCH, OPTIONS } = otherMethods({ POST });
