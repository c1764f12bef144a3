import { expect, test } from '@playwright/test';
import { runMcpConformance } from '@/scripts/shared/mcp-conformance';
import { agentKey } from './support';

test('the official MCP conformance server scenarios that apply pass against /api/mcp', async ({ baseURL }) => {
  test.setTimeout(120_000);
  const results = await runMcpConformance({ baseUrl: baseURL!, key: agentKey('acme') });
  // On failure the message carries the suite's own report of each failed scenario.
  expect(results.filter((result) => !result.ok).map((result) => `${result.scenario}\n${result.output}`)).toEqual([]);
  expect(results.map((result) => result.scenario)).toEqual(['server-initialize', 'ping', 'tools-list']);
});
