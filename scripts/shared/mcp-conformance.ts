/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against Countersign's
 * /api/mcp: the server scenarios that apply to a server with its own tools. The suite's client
 * sends no headers of its own, so a loopback proxy in front of the server adds the agent key.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { childEnvironment } from '@/lib/env';

/** The server scenarios that apply to Countersign. */
export const APPLICABLE_SCENARIOS = ['server-initialize', 'ping', 'tools-list'] as const;

/** The others, and why they do not apply (docs/api.md lists them too). */
export const SCENARIOS_NOT_APPLICABLE: Record<string, string> = {
  'tools-call-*, json-schema-2020-12, elicitation-sep1034-defaults, elicitation-sep1330-enums':
    "they call the suite's own test tools (test_simple_text, test_image_content, …); Countersign lists only its " +
    'own (propose_<action>, get_proposal_status) and asks the client for no sampling, elicitation, progress or ' +
    'logging',
  'logging-set-level': 'no logging capability',
  'completion-complete': 'no prompts or resource templates to complete',
  'resources-*, prompts-*': 'no resources or prompts capability',
  'server-sse-polling, server-sse-multiple-streams':
    'stateless with JSON responses: no session, no SSE stream (GET is 405)',
  'dns-rebinding-protection':
    'by its own scope it is for servers without authentication; every request here needs an agent key, which a ' +
    'rebinding page never has; a foreign Origin is refused with 403 (lib/mcp/mcp.int.test.ts)',
};

export type ScenarioResult = { scenario: string; ok: boolean; output: string };

const DEFAULT_CLI = path.join(process.cwd(), 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'authorization',
]);

async function readBody(incoming: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return chunks.length > 0 ? Buffer.concat(chunks) : undefined;
}

/** A loopback proxy to `target` that adds `Authorization: Bearer <key>` to every request. */
async function keyProxy(target: string, key: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((incoming, outgoing) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers))
      if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers.set(name, value);
    headers.set('authorization', `Bearer ${key}`);
    readBody(incoming)
      .then((body) => fetch(target, { method: incoming.method, headers, body: body && new Uint8Array(body) }))
      .then(async (response) => {
        const answer = Buffer.from(await response.arrayBuffer());
        const kept = [...response.headers.entries()].filter(
          ([name]) => !HOP_BY_HOP.has(name) && name !== 'content-encoding',
        );
        outgoing.writeHead(response.status, Object.fromEntries(kept)).end(answer);
      })
      .catch(() => outgoing.writeHead(502).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy got no port');
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function runScenario(cli: string, url: string, scenario: string): Promise<ScenarioResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, 'server', '--url', url, '--scenario', scenario], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnvironment({ FORCE_COLOR: '0' }),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', (error) => resolve({ scenario, ok: false, output: `${output}\n${error.message}` }));
    child.on('close', (code) => resolve({ scenario, ok: code === 0, output }));
  });
}

/** Runs each applicable scenario (one after the other) against `baseUrl`'s /api/mcp with `key`. */
export async function runMcpConformance({
  baseUrl,
  key,
  cli = DEFAULT_CLI,
}: {
  baseUrl: string;
  key: string;
  cli?: string;
}): Promise<ScenarioResult[]> {
  const proxy = await keyProxy(new URL('/api/mcp', baseUrl).toString(), key);
  try {
    const results: ScenarioResult[] = [];
    for (const scenario of APPLICABLE_SCENARIOS) results.push(await runScenario(cli, proxy.url, scenario));
    return results;
  } finally {
    await proxy.close();
  }
}
