import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, test } from '@playwright/test';
import { agentKey, apiSession, uniqueRequestId } from './support';

type ToolAnswer = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

/** An MCP client configured as docs/api.md shows: the server's URL and the agent key as a bearer header. */
async function mcpClient(baseURL: string, key: string): Promise<Client> {
  const client = new Client({ name: 'countersign-e2e', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/api/mcp', baseURL), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolAnswer;
const textOf = (answer: ToolAnswer) => answer.content.map((c) => c.text ?? '').join('\n');

test('without a valid agent key the MCP server answers 401', async ({ request }) => {
  const message = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  for (const extra of [{}, { authorization: 'Bearer cs_agent_not-a-key' }] as Record<string, string>[]) {
    const response = await request.post('/api/mcp', { headers: { ...headers, ...extra }, data: message });
    expect(response.status()).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
  }
});

test('an MCP client lists the tools, is told how to repair a refused call, proposes, and sees the decision and the execution', async ({
  baseURL,
}) => {
  const client = await mcpClient(baseURL!, agentKey('acme'));
  const { tools } = await client.listTools();
  expect(tools.map((tool) => tool.name).sort()).toEqual([
    'get_proposal_status',
    'propose_hold_stock',
    'propose_issue_refund',
  ]);
  const hold = tools.find((tool) => tool.name === 'propose_hold_stock')!;
  expect(hold.inputSchema).toMatchObject({
    type: 'object',
    additionalProperties: false,
    required: ['sku', 'quantity', 'requestId'],
  });
  expect(hold.outputSchema).toMatchObject({
    type: 'object',
    required: ['proposalId', 'status', 'payloadHash', 'reviewUrl'],
  });

  // Another tenant's SKU: the HTTP API's answer, revealing nothing.
  const foreign = await call(client, 'propose_hold_stock', {
    requestId: uniqueRequestId('mcp-foreign'),
    sku: 'filter-green',
    quantity: 1,
  });
  expect(foreign.isError).toBe(true);
  expect(textOf(foreign)).toBe(
    'Refused: not_authorized (authorization). A referenced resource does not exist or may not be used by this key.',
  );

  // A refused call names the field and what was expected; its repair is accepted.
  const refused = uniqueRequestId('mcp-refused');
  const invalid = await call(client, 'propose_hold_stock', { requestId: refused, sku: 'filter-blue', quantity: 9 });
  expect(invalid.isError).toBe(true);
  expect(textOf(invalid)).toContain('- quantity: expected a number at most 4; received integer 9.');
  expect(textOf(invalid)).toContain(`repairOf "${refused}" (3 repairs left)`);
  const repaired = await call(client, 'propose_hold_stock', {
    requestId: uniqueRequestId('mcp-repaired'),
    repairOf: refused,
    sku: 'filter-blue',
    quantity: 1,
  });
  expect(repaired.isError).toBeFalsy();
  // The client validated structuredContent against the tool's outputSchema; the shape is asserted too.
  const proposal = repaired.structuredContent as {
    proposalId: string;
    status: string;
    payloadHash: string;
    reviewUrl: string;
  };
  expect(proposal).toEqual({
    proposalId: expect.stringMatching(/^prp_/),
    status: 'pending_approval',
    payloadHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    reviewUrl: expect.stringMatching(/\/proposals\/prp_/),
  });

  const pending = await call(client, 'get_proposal_status', { proposalId: proposal.proposalId });
  expect(pending.structuredContent).toMatchObject({
    status: 'pending_approval',
    pending: true,
    decisions: [],
    execution: null,
  });

  // An operator approves through the operator API; the agent's status call waits for it.
  const waiting = call(client, 'get_proposal_status', { proposalId: proposal.proposalId, waitSeconds: 20 });
  const alice = await apiSession(baseURL!, 'alice@acme.test');
  const approved = await alice.post(`/api/v1/proposals/${proposal.proposalId}/decisions`, {
    headers: { origin: baseURL! },
    data: { decision: 'approve', payloadHash: proposal.payloadHash },
  });
  expect(approved.status()).toBe(200);
  expect((await waiting).structuredContent).toMatchObject({ pending: false, decisions: [{ decision: 'approve' }] });

  // The execution outcome follows: the hold is made and its receipt validated.
  await expect
    .poll(
      async () => (await call(client, 'get_proposal_status', { proposalId: proposal.proposalId })).structuredContent,
      { timeout: 20_000 },
    )
    .toMatchObject({
      status: 'succeeded',
      execution: { status: 'succeeded', receipt: { id: expect.stringMatching(/^hold_/) } },
    });
  await alice.dispose();
  await client.close();
});
