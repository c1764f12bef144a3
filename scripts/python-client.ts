/**
 * `npm run test:python`: the Python client's tests (clients/python/tests, `python3 -m unittest`)
 * against a live demo server. Builds nothing: run `npm run build` first (npm test has by then).
 * Starts the demo (scripts/demo.ts --no-build) on a fresh data folder and, when DATABASE_URL is
 * set, a fresh PostgreSQL database dropped afterwards; on free ports, or from PYTHON_CLIENT_PORT
 * up (it and the next three). The tests get the URL, the acme agent key and an acme approver's
 * sign-in in their environment. Exits with unittest's code. PYTHON_CLIENT_INTERPRETER names another
 * interpreter than `python3` (e.g. a 3.9, the oldest the client supports).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DemoCredentials } from '@/demo/world';
import { childEnvironment, env } from '@/lib/env';
import { freePorts } from '@/test/start-failures';
import { type Ports, type Running, startDemo, stop } from './resilience/processes';
import { scratchDatabase } from './shared/scratch-database';
import { waitForHealth } from './shared/wait';

const TESTS = 'clients/python/tests';
const PYTHON = process.env.PYTHON_CLIENT_INTERPRETER || 'python3';

/** The Python the tests run with, or why there is none that will do. */
function python(): { ok: true; version: string } | { ok: false; reason: string } {
  const probe = spawnSync(
    PYTHON,
    ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3]); sys.exit(0 if sys.version_info >= (3, 9) else 1)'],
    { encoding: 'utf8' },
  );
  if (probe.error)
    return {
      ok: false,
      reason:
        `${PYTHON} is missing (${probe.error.message}): install Python 3.9 or later to run the Python client's ` +
        `tests`,
    };
  const version = probe.stdout.trim();
  if (probe.status !== 0)
    return { ok: false, reason: `${PYTHON} is ${version || 'unusable'}; the Python client needs 3.9 or later` };
  return { ok: true, version };
}

async function ports(): Promise<Ports> {
  const given = process.env.PYTHON_CLIENT_PORT;
  const [app, systems, mail, sink] = given ? [0, 1, 2, 3].map((offset) => Number(given) + offset) : await freePorts(4);
  return { app: app!, systems: systems!, mail: mail!, sink: sink! };
}

/** Runs unittest with the live server's settings; resolves its exit code. */
function unittest(settings: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, ['-m', 'unittest', 'discover', '-s', TESTS, '-v'], {
      stdio: 'inherit',
      env: childEnvironment({ PYTHONPATH: 'clients/python', PYTHONDONTWRITEBYTECODE: '1', ...settings }),
    });
    child.on('error', (error) => {
      console.error(`${PYTHON} could not be started: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<number> {
  const found = python();
  if (!found.ok) {
    console.error(found.reason);
    return 1;
  }
  if (!fs.existsSync(path.join('.next', 'BUILD_ID'))) {
    console.error('No production build: run `npm run build` first.');
    return 1;
  }
  const baseUrl = env().DATABASE_URL;
  const database = baseUrl ? scratchDatabase(baseUrl, 'cs_python') : undefined;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-python-'));
  const chosen = await ports();
  let demo: Running | undefined;
  let code = 1;
  try {
    await database?.create();
    console.log(
      `python client: Python ${found.version}; server on ` +
        `port ${chosen.app}, ${database ? `PostgreSQL (database ${database.name})` : 'PGlite'}, data ` +
        `in ${dataDir}`,
    );
    demo = startDemo(chosen, dataDir, database?.url ?? '', 0);
    await waitForHealth(`http://127.0.0.1:${chosen.app}/api/health`, demo, 180_000);
    const credentials = JSON.parse(
      fs.readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8'),
    ) as DemoCredentials;
    const agent = credentials.agents.find((candidate) => candidate.tenant === 'acme');
    const approver = credentials.people.find((person) => person.tenant === 'acme' && person.role === 'approver');
    if (!agent || !approver) throw new Error('the demo credentials name no acme agent key or approver');
    code = await unittest({
      COUNTERSIGN_URL: credentials.url,
      COUNTERSIGN_AGENT_KEY: agent.key,
      COUNTERSIGN_OPERATOR_EMAIL: approver.email,
      COUNTERSIGN_OPERATOR_PASSWORD: approver.password,
    });
  } catch (error) {
    console.error(`python client: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await stop(demo);
    await database?.drop();
  }
  // Kept after a failure: the server's log is in it.
  if (code === 0) fs.rmSync(dataDir, { recursive: true, force: true });
  else if (demo) console.error(`python client: the server's log is ${demo.logFile}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('python client run failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
