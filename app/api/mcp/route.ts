import { getDb } from '@/db';
import { consumeRateLimit } from '@/lib/agents/rate-limit';
import { env } from '@/lib/env';
import { readJsonBody } from '@/lib/http/body';
import { errorResponse } from '@/lib/http/errors';
import { publicOrigin } from '@/lib/http/origin';
import { requireAgent } from '@/lib/http/principal';
import { handleMcpRequest } from '@/lib/mcp/server';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

/**
 * The MCP server (Streamable HTTP, stateless, JSON responses): an agent key and nothing else, the
 * key's rate limit, the body through the capped JSON reader, then one MCP message exchange.
 */
export async function POST(request: Request) {
  try {
    const db = await getDb();
    const agent = await requireAgent(db, request);
    await consumeRateLimit(db, `agent:${agent.keyId}`, env().AGENT_RATE_LIMIT_PER_MINUTE);
    const { value } = await readJsonBody(request);
    return await handleMcpRequest({ db, agent, systems: systemsClient(), origin: publicOrigin(request), signal: request.signal }, request, value);
  } catch (error) {
    return errorResponse(error);
  }
}

/** Stateless: no server-initiated stream to open (GET) and no session to end (DELETE). */
async function methodNotAllowed(request: Request) {
  try {
    await requireAgent(await getDb(), request);
    return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }, { status: 405, headers: { Allow: 'POST' } });
  } catch (error) {
    return errorResponse(error);
  }
}

export const GET = methodNotAllowed;
export const DELETE = methodNotAllowed;
