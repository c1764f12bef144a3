/**
 * `npm run bench`: intake throughput of the production server. Starts the demo server (PGlite,
 * or PostgreSQL when DATABASE_URL is set, in a fresh database), then sends distinct hold_stock
 * proposals from CONCURRENCY parallel clients for DURATION seconds and prints the rate and
 * latency percentiles. Loopback only; bounded in time.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { DemoCredentials } from '@/demo/world';
import { childEnvironment, env } from '@/lib/env';

const CONCURRENCY = 32;
const DURATION_MS = 8_000;
const PORT = 3290;

async function waitForHealth(url: string, deadline: number) {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('server did not start');
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-bench-'));
  const baseUrl = env().DATABASE_URL;
  const dbName = `cs_bench_${randomBytes(4).toString('hex')}`;
  const admin = baseUrl ? postgres(baseUrl, { max: 1, onnotice: () => {} }) : undefined;
  let databaseUrl: string | undefined;
  if (admin && baseUrl) {
    await admin.unsafe(`create database ${dbName}`);
    const url = new URL(baseUrl);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const server = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--no-build'], {
    stdio: 'ignore',
    env: childEnvironment({ PORT: String(PORT), COUNTERSIGN_DATA_DIR: dataDir, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) }),
  });
  const url = `http://localhost:${PORT}`;
  try {
    await waitForHealth(url, Date.now() + 120_000);
    const credentials = JSON.parse(fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const key = credentials.agents[0]!.key;
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let sequence = 0;
    const end = Date.now() + DURATION_MS;
    const client = async () => {
      while (Date.now() < end) {
        const started = performance.now();
        const response = await fetch(`${url}/api/v1/proposals`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ requestId: `bench-${sequence++}`, action: 'hold_stock', contractVersion: 1, args: { sku: 'filter-blue', quantity: 1 } }),
        });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      }
    };
    const began = Date.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, client));
    const seconds = (Date.now() - began) / 1000;
    latencies.sort((a, b) => a - b);
    console.log(`intake on ${databaseUrl ? 'PostgreSQL' : 'PGlite'}: ${latencies.length} requests in ${seconds.toFixed(1)} s with ${CONCURRENCY} clients`);
    console.log(`  ${(latencies.length / seconds).toFixed(0)} proposals/s · p50 ${percentile(latencies, 50).toFixed(0)} ms · p99 ${percentile(latencies, 99).toFixed(0)} ms`);
    console.log(`  statuses: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(', ')}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    if (admin) {
      await admin.unsafe(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error('bench failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
