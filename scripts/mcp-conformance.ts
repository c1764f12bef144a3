/**
 * `npm run mcp:conformance`: the official MCP conformance server scenarios that apply to
 * Countersign, against a running server (COUNTERSIGN_URL and COUNTERSIGN_AGENT_KEY, else the
 * demo's credentials file, as the examples find them). Exits non-zero when one fails.
 */
import { exampleSettings } from './examples/settings';
import { runMcpConformance, SCENARIOS_NOT_APPLICABLE } from './shared/mcp-conformance';

async function main(): Promise<number> {
  const { baseUrl, agentKey } = exampleSettings();
  console.log(`MCP conformance against ${baseUrl}/api/mcp`);
  const results = await runMcpConformance({ baseUrl, key: agentKey });
  for (const result of results)
    console.log(`\n── ${result.scenario}: ${result.ok ? 'passed' : 'FAILED'} ──\n${result.output.trim()}`);
  console.log('\nNot applicable:');
  for (const [scenarios, why] of Object.entries(SCENARIOS_NOT_APPLICABLE)) console.log(`  ${scenarios}: ${why}`);
  return results.every((result) => result.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('mcp:conformance failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
