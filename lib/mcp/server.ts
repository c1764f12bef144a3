import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import * as streamableHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Database } from '@/db';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { tenantActions } from '@/lib/definitions/catalog';
import { wireCode } from '@/lib/errors/codes';
import { Refusal } from '@/lib/errors/refusal';
import { isRequestId } from '@/lib/ids';
import { submitProposal } from '@/lib/intake/intake';
import type { SystemsClient } from '@/lib/systems/client';
import { actionOfTool, envelopeOf, proposalTools } from './catalogue';
import { errorResult, proposalResult, refusalResult, type ToolResult } from './results';
import { awaitDecision, parseStatusInput, STATUS_TOOL, statusResult, statusTool } from './status';

/** Everything a tool call may use, all from the authenticated request (never from the call's arguments). */
export type McpContext = {
  db: Database;
  agent: AgentPrincipal;
  systems: SystemsClient;
  /** The public origin review links point at. */
  origin: string;
  /** Aborted when the HTTP request goes away. */
  signal: AbortSignal;
};

const INSTRUCTIONS =
  'Countersign is an approval gate: each propose_* tool proposes one action for review by people; nothing ' +
  'happens until it is approved. ' +
  'Use get_proposal_status to learn the decision and the execution outcome.';

async function listTools(ctx: McpContext) {
  try {
    const tools = proposalTools(await tenantActions(ctx.db, ctx.agent.tenantId), ctx.agent);
    return [
      ...tools.map(({ name, title, description, inputSchema, outputSchema }) => ({
        name,
        title,
        description,
        inputSchema,
        outputSchema,
      })),
      statusTool,
    ];
  } catch (error) {
    // The SDK would send a thrown error's message to the client: send nothing of it.
    console.error('[countersign] MCP tools/list failed', error instanceof Error ? error.name : typeof error);
    throw new McpError(ErrorCode.InternalError, 'Something went wrong on the server.');
  }
}

async function propose(ctx: McpContext, name: string, input: Record<string, unknown>): Promise<ToolResult> {
  const action = actionOfTool(name);
  const tool = action
    ? proposalTools(await tenantActions(ctx.db, ctx.agent.tenantId), ctx.agent).find((t) => t.action === action)
    : undefined;
  if (!tool)
    return errorResult(
      `Refused: ${wireCode('unknown_tool')}. This key has no such tool; list the tools to see the ones it may use.`,
    );
  const envelope = envelopeOf(tool, input);
  try {
    // The same intake as POST /api/v1/proposals: gates, attempts, repair budget and idempotency.
    const { proposal } = await submitProposal(
      ctx.db,
      ctx.agent,
      { text: JSON.stringify(envelope), value: envelope },
      ctx.systems,
    );
    return proposalResult(proposal, ctx.origin);
  } catch (error) {
    if (error instanceof Refusal)
      return refusalResult(error, isRequestId(input.requestId) ? input.requestId : undefined);
    throw error;
  }
}

async function proposalStatus(
  ctx: McpContext,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolResult> {
  try {
    const proposal = await awaitDecision(
      ctx.db,
      ctx.agent,
      parseStatusInput(input),
      AbortSignal.any([signal, ctx.signal]),
    );
    return await statusResult(ctx.db, proposal, ctx.origin);
  } catch (error) {
    if (error instanceof Refusal) return refusalResult(error);
    throw error;
  }
}

async function callTool(
  ctx: McpContext,
  name: string,
  input: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ToolResult> {
  try {
    return name === STATUS_TOOL ? await proposalStatus(ctx, input, signal) : await propose(ctx, name, input);
  } catch (error) {
    // Unknown failures never leak their text to the model.
    console.error('[countersign] MCP tool failed', error instanceof Error ? error.name : typeof error);
    return errorResult(
      `Refused: ${wireCode('internal_error')}. Something went wrong on the server; nothing was changed. Retry later.`,
    );
  }
}

/** A fresh MCP server for one request (stateless): the key's tools and the status tool. */
export function mcpServer(ctx: McpContext): Server {
  const server = new Server(
    { name: 'countersign', version: '1.0.0' },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await listTools(ctx) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    callTool(ctx, request.params.name, request.params.arguments ?? {}, extra.signal),
  );
  return server;
}

/**
 * One Streamable HTTP request in stateless mode with JSON responses: a server and transport made
 * for it and closed after it. `message` is the one JSON-RPC message readMcpMessage let through.
 */
export async function handleMcpRequest(ctx: McpContext, request: Request, message: unknown): Promise<Response> {
  const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const server = mcpServer(ctx);
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: message });
  } finally {
    await server.close();
  }
}
