import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { expect, test } from '@playwright/test';
import { EXAMPLE_ORDERS } from '@/demo/systems/world';
import { type DocExample, documentationExamples } from '@/test/doc-examples';
import { withoutCountersignSettings } from './cli-runner';
import { apiSession, e2eDataDir } from './support';

// Every example the README and docs/ mark as runnable (test/doc-examples.ts), run as written and in
// the order shown, as a reader runs them: in a clone whose .data is the e2e server's (so
// `.data/demo-credentials.json` is what the demo wrote), in one shell whose exported variables carry
// from block to block, with the files the docs say to save. While a block waits for a person, alice
// approves every proposal it prints, through the operator API. Other specs share this server, so
// the docs' orders and amounts leave room for theirs (README.md and docs/api.md say which).

type Documented = {
  /** The block waits for a person: approve each proposal it prints. */
  approves: boolean;
  timeoutMs?: number;
  /** What the docs say the block prints. */
  check: (output: string) => void;
};

const proposalIn = (output: string) => (JSON.parse(output) as { proposal: { id: string; status: string } }).proposal;
const pendingProposal = (output: string) =>
  expect(proposalIn(output)).toMatchObject({ id: expect.stringMatching(/^prp_/), status: 'pending_approval' });

/** Each marked example's documented outcome, in document order. */
const DOCUMENTED: Record<string, Documented> = {
  'readme-hold': { approves: false, check: pendingProposal },
  'team-action-service': {
    approves: false,
    check: (output) => expect(output).toContain('resolver and executor at http://127.0.0.1:4795/deployments'),
  },
  'team-action-apply': {
    approves: false,
    check: (output) => expect(JSON.parse(output)).toMatchObject({ name: 'create_deployment', version: 1 }),
  },
  'team-action-key': { approves: false, check: (output) => expect(output).toBe('') },
  'team-action-deploy': {
    approves: true,
    check: (output) => {
      pendingProposal(output.slice(0, output.indexOf('\n')));
      const receipt = /^succeeded (\{.*\})$/m.exec(output)?.[1];
      expect(JSON.parse(receipt ?? 'null')).toEqual({
        deploymentId: expect.stringMatching(/^dep_\d+$/),
        service: 'web',
        version: '1.4.2',
      });
      expect(output).toMatch(/^deployed web 1\.4\.2 as dep_\d+$/m);
    },
  },
  'api-refund': { approves: false, check: pendingProposal },
  'api-mcp': {
    approves: true,
    check: (output) => {
      expect(output).toContain('tools: propose_hold_stock, propose_issue_refund, get_proposal_status');
      expect(output).toMatch(/^proposal prp_\w+: pending_approval; review it at http\S+$/m);
      expect(output).toMatch(/^now (approved|executing|succeeded)$/m);
    },
  },
  'api-typed-client': {
    approves: true,
    check: (output) => {
      expect(output).toMatch(/^proposal prp_\w+: pending_approval; review it at http\S+$/m);
      expect(output).toMatch(/^outcome: succeeded$/m);
    },
  },
  'api-openapi': {
    approves: false,
    check: (output) =>
      expect(JSON.parse(output)).toEqual(
        expect.arrayContaining(['/api/v1/proposals', '/api/v1/proposals/{id}', '/api/v1/contracts']),
      ),
  },
  'api-npm-examples': {
    approves: true,
    timeoutMs: 300_000,
    check: (output) => {
      expect(output).toContain(`on ${EXAMPLE_ORDERS.agent} (requestId`);
      expect(output).toContain('Outcome: succeeded (approved)');
      for (const order of [EXAMPLE_ORDERS.aiSdk, EXAMPLE_ORDERS.agentsSdk]) {
        expect(output).toMatch(
          new RegExp(
            `Model: The refund on ${order} ended succeeded: approved by a person\\. Review: http\\S+/proposals/prp_\\w+`,
          ),
        );
      }
      // The scripted models' first calls send the amount as "12.00"; Countersign names the field, the models repair it.
      expect(output.match(/"code":"contract_violation"/g)).toHaveLength(2);
      expect(output.match(/"field":"amountMinor"/g)).toHaveLength(2);
    },
  },
  'api-contracts-lint': {
    approves: false,
    check: (output) => {
      expect(output).toMatch(/^issue_refund v1 \(current\): 0 error\(s\), \d+ warning\(s\)$/m);
      expect(output).toMatch(/^hold_stock v1 \(current\): 0 error\(s\), \d+ warning\(s\)$/m);
    },
  },
  'operations-signing-keys': {
    approves: false,
    check: (output) => expect(output.trim()).toBe('2 keys after rotating, 1 after retiring'),
  },
};

/** A clone as the reader has it: the repository's files, and .data the e2e server's data folder. */
function readersClone(): string {
  const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-docs-'));
  for (const entry of fs.readdirSync(process.cwd())) {
    if (['.data', '.git', '.next', 'test-results'].includes(entry)) continue;
    fs.symlinkSync(path.resolve(entry), path.join(clone, entry));
  }
  fs.symlinkSync(e2eDataDir(), path.join(clone, '.data'));
  return clone;
}

type Running = { output: () => string; exit: Promise<number | null>; changed: () => Promise<void>; stop: () => void };

/** `env -0` output as an environment. */
const exported = (text: string) =>
  Object.fromEntries(
    text
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  ) as NodeJS.ProcessEnv;

/** The reader's shell: a block runs as if pasted (stopping at the first failing command), and what it exports stays set. */
class Shell {
  private env: NodeJS.ProcessEnv;
  /** Each block's process group: what a block left running in the background (a service it started) is in it. */
  private readonly groups: number[] = [];
  /** `configHome` is the reader's XDG_CONFIG_HOME, where the docs keep private keys (outside the clone). */
  constructor(
    private readonly cwd: string,
    configHome: string,
  ) {
    this.env = { ...withoutCountersignSettings(), XDG_CONFIG_HOME: configHome };
  }

  /** As the reader closing the terminal: stops what the blocks left running. */
  close() {
    for (const group of this.groups) {
      try {
        process.kill(-group, 'SIGTERM');
      } catch {
        // The group is gone: nothing of that block runs any more.
      }
    }
  }

  save(example: DocExample) {
    fs.writeFileSync(path.join(this.cwd, example.name), example.code);
  }

  run(example: DocExample): Running {
    const script = path.join(this.cwd, `.example-${example.name}.sh`);
    const envAfter = path.join(this.cwd, `.example-${example.name}.env`);
    fs.writeFileSync(script, example.code);
    const child = spawn('bash', ['-c', 'set -euo pipefail; source "$0"; env -0 > "$1"', script, envAfter], {
      cwd: this.cwd,
      env: this.env,
      detached: true,
    });
    if (child.pid) this.groups.push(child.pid);
    let output = '';
    let waiting: (() => void)[] = [];
    const wake = () => {
      for (const resolve of waiting) resolve();
      waiting = [];
    };
    const append = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      wake();
    };
    child.stdout.on('data', append);
    child.stderr.on('data', append);
    const exit = new Promise<number | null>((resolve) =>
      child.on('close', (code) => {
        if (code === 0) this.env = exported(fs.readFileSync(envAfter, 'utf8'));
        wake();
        resolve(code);
      }),
    );
    return {
      output: () => output,
      exit,
      changed: () =>
        child.exitCode === null ? new Promise<void>((resolve) => waiting.push(resolve)) : Promise.resolve(),
      stop: () => {
        if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
      },
    };
  }
}

/** As the reader approves in the dashboard: every proposal the block prints, once, while it runs. */
async function approveWhatItPrints(running: Running, baseURL: string) {
  const alice = await apiSession(baseURL, 'alice@acme.test');
  const seen = new Set<string>();
  let done = false;
  void running.exit.then(() => (done = true));
  try {
    while (!done) {
      for (const id of running.output().match(/prp_[A-Za-z0-9]+/g) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const proposal = (await (await alice.get(`/api/v1/proposals/${id}`)).json()) as {
          payloadHash: string;
          status: string;
        };
        if (proposal.status !== 'pending_approval') continue;
        const decided = await alice.post(`/api/v1/proposals/${id}/decisions`, {
          headers: { origin: baseURL },
          data: { decision: 'approve', payloadHash: proposal.payloadHash },
        });
        expect(decided.status(), `approving ${id}`).toBe(200);
      }
      await running.changed();
    }
  } finally {
    await alice.dispose();
  }
}

const EXAMPLES = documentationExamples(process.cwd());

test.describe('the README and docs/ examples, run as written in the order shown', () => {
  test.describe.configure({ mode: 'serial' });
  let clone = '';
  let configHome = '';
  let shell: Shell;
  test.beforeAll(() => {
    clone = readersClone();
    configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'countersign-config-'));
    shell = new Shell(clone, configHome);
  });
  test.afterAll(() => {
    shell.close();
    // Removes the links, never what they point to.
    fs.rmSync(clone, { recursive: true, force: true });
    fs.rmSync(configHome, { recursive: true, force: true });
  });

  test('every marked example has its documented outcome here, and every outcome its marked example', () => {
    expect(EXAMPLES.filter((example) => example.kind === 'run').map((example) => example.name)).toEqual(
      Object.keys(DOCUMENTED),
    );
  });

  let saved = 0;
  EXAMPLES.forEach((example, index) => {
    if (example.kind !== 'run') return;
    test(`${example.name} (${example.where})`, async ({ baseURL }) => {
      const documented = DOCUMENTED[example.name];
      expect(documented, `${example.where}: no documented outcome for ${example.name}`).toBeDefined();
      test.setTimeout(documented!.timeoutMs ?? 120_000);
      // The files the docs asked to save since the last command.
      for (; saved < index; saved++) if (EXAMPLES[saved]!.kind === 'file') shell.save(EXAMPLES[saved]!);
      const running = shell.run(example);
      try {
        if (documented!.approves) await approveWhatItPrints(running, baseURL!);
        expect(await running.exit, running.output()).toBe(0);
        // What the reader reads, without the colours a terminal (or FORCE_COLOR) adds.
        documented!.check(stripVTControlCharacters(running.output()));
      } finally {
        running.stop();
      }
    });
  });
});
