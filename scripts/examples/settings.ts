import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the examples find Countersign and their agent key: COUNTERSIGN_URL and
 * COUNTERSIGN_AGENT_KEY, else the demo's credentials file (`npm run demo` writes it).
 */
export function exampleSettings(tenant = 'acme'): { baseUrl: string; agentKey: string } {
  const dataDir = process.env.COUNTERSIGN_DATA_DIR ?? '.data';
  const file = path.resolve(dataDir, 'demo-credentials.json');
  let demo: { url?: string; agents?: { tenant?: string; key: string }[] } = {};
  if (fs.existsSync(file)) demo = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof demo;
  const baseUrl = process.env.COUNTERSIGN_URL ?? demo.url ?? 'http://localhost:3000';
  const agentKey = process.env.COUNTERSIGN_AGENT_KEY ?? demo.agents?.find((agent) => agent.tenant === tenant)?.key;
  if (!agentKey)
    throw new Error(`set COUNTERSIGN_AGENT_KEY, or start the demo (npm run demo) so ${file} holds its agent keys`);
  return { baseUrl, agentKey };
}
