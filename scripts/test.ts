/**
 * `npm test`: type check, lint, format, the layers (dependency-cruiser), unit, components (jsdom),
 * contracts lint and the production build; integration on PGlite, and on PostgreSQL when
 * DATABASE_URL is set; end-to-end; then the Python client's tests against a live server and (with
 * PostgreSQL) short runs of the bench and the resilience checks; last, the container image end to
 * end (skipped, with the reason, where no Docker engine runs). Steps in one stage run side by side
 * (the seven checks; the last three); a stage starts when the one before it passed. Each step's
 * output is printed when it ends, never interleaved.
 */
import { spawn } from 'node:child_process';
import { childEnvironment, env } from '@/lib/env';
import { suiteNodeProblem } from '@/lib/node-version';

type Step = { name: string; command: string[]; env?: Record<string, string> };
type Result = { name: string; ok: boolean; seconds: number };

const npx = (bin: string, ...args: string[]) => ['node', `node_modules/${bin}`, ...args];
const tsx = (script: string, ...args: string[]) => ['node', '--import', 'tsx', script, ...args];
const postgres = Boolean(env().DATABASE_URL);

const stages: Step[][] = [
  [
    { name: 'type check', command: npx('typescript/bin/tsc', '--noEmit') },
    { name: 'lint', command: npx('eslint/bin/eslint.js', '.', '--max-warnings=0') },
    // Layout and import order, over the files biome.json includes; `npm run format` fixes them.
    { name: 'format', command: npx('@biomejs/biome/bin/biome', 'ci', '--colors=off', '.') },
    {
      name: 'layers',
      command: npx(
        'dependency-cruiser/bin/dependency-cruise.mjs',
        'lib',
        'db',
        'components',
        'app',
        '--output-type',
        'err',
      ),
    },
    // One shared module graph for the unit files, and a fresh one per file for those that mock (vitest.config.mts).
    { name: 'unit', command: npx('vitest/vitest.mjs', 'run', '--project', 'unit', '--project', 'unit-isolated') },
    { name: 'components', command: npx('vitest/vitest.mjs', 'run', '--project', 'components') },
    { name: 'contracts lint', command: tsx('scripts/cli.ts', 'contracts:lint') },
  ],
  // One after the other: side by side they take as long (both are CPU-bound on two cores) and
  // the PostgreSQL project's timing bounds and worker processes fail under the doubled load.
  // With PostgreSQL, every integration file runs there and PGlite runs its driver-conformance set
  // (vitest.config.mts); without it, as on a newcomer's machine, PGlite runs every file.
  [
    {
      name: postgres ? 'integration on PGlite (driver conformance)' : 'integration on PGlite',
      command: npx('vitest/vitest.mjs', 'run', '--project', 'integration-pglite'),
      ...(postgres ? { env: { COUNTERSIGN_PGLITE_SET: 'conformance' } } : {}),
    },
  ],
  ...(postgres
    ? [
        [
          {
            name: 'integration on PostgreSQL',
            command: npx('vitest/vitest.mjs', 'run', '--project', 'integration-postgres'),
          },
        ],
      ]
    : []),
  // The standalone output as well (next.config.ts), so the container step packs this build into the
  // image rather than building the app a second time inside Docker; `next start` serves the same build.
  [{ name: 'build', command: npx('next/dist/bin/next', 'build'), env: { NEXT_OUTPUT: 'standalone' } }],
  // Traces cost every test its recording and nobody reads them from a full run: rerun a failing
  // spec alone (`npm run test:e2e -- e2e/x.spec.ts`) to get its trace.
  [{ name: 'e2e', command: tsx('scripts/e2e.ts'), env: { E2E_TRACE: 'off' } }],
  // The Python client against its own demo server (PGlite, or a fresh PostgreSQL database), and
  // with PostgreSQL short runs of the bench and resilience, so neither script rots: their numbers go
  // to a temporary folder, never over the published ones. Each starts its own servers on its own ports.
  [
    { name: 'python client', command: tsx('scripts/python-client.ts') },
    ...(postgres
      ? [
          { name: 'bench (short)', command: tsx('scripts/bench.ts', '--short', '--no-build') },
          {
            name: 'resilience (short)',
            command: tsx(
              'scripts/resilience.ts',
              '--short',
              '--seed',
              '1',
              '--runs',
              '30',
              '--soak-seconds',
              '10',
              '--burst',
              '30',
            ),
          },
        ]
      : []),
  ],
  // The container image end to end (build, migrate, cli, dashboard and worker containers, an
  // approval through them, compose.yaml validated); it says why and passes when no engine runs.
  // From the build above (--prebuilt): the image is proven as it runs on a fresh machine, its own
  // Debian and Node, only the app built once; `npm run test:container` alone builds it all in Docker.
  [{ name: 'container', command: tsx('scripts/container-test.ts', '--prebuilt') }],
];

/** Runs a step to its end, keeping its output to print in one piece. */
function run(step: Step): Promise<Result & { output: string }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const [bin, ...args] = step.command;
    const child = spawn(bin!, args, {
      env: childEnvironment({ NEXT_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0', ...step.env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', (error) =>
      resolve({
        name: step.name,
        ok: false,
        seconds: (Date.now() - started) / 1000,
        output: `${output}\n${error.message}`,
      }),
    );
    child.on('close', (code) =>
      resolve({ name: step.name, ok: code === 0, seconds: (Date.now() - started) / 1000, output }),
    );
  });
}

async function main(): Promise<number> {
  // On an older Node the components step dies in jsdom with a stack trace: say why, once, first.
  const problem = suiteNodeProblem();
  if (problem) {
    console.error(problem);
    return 1;
  }
  console.log(`Node ${process.versions.node}`);
  const results: Result[] = [];
  let stagesRun = 0;
  for (const stage of stages) {
    stagesRun++;
    console.log(`\n━━ ${stage.map((step) => step.name).join(' · ')} ━━`);
    const finished = await Promise.all(stage.map(run));
    for (const result of finished) {
      console.log(
        `\n── ${result.name} (${result.ok ? 'passed' : 'FAILED'}, ${result.seconds.toFixed(1)} s) ──\n${result.output}`,
      );
      results.push(result);
    }
    if (finished.some((result) => !result.ok)) break;
  }
  console.log('\n━━ summary ━━');
  for (const result of results) console.log(`${result.ok ? '✓' : '✗'} ${result.name} (${result.seconds.toFixed(1)} s)`);
  if (!postgres)
    console.log(
      '• integration on PostgreSQL, bench and resilience not run: set DATABASE_URL to a PostgreSQL server to ' +
        'include them',
    );
  const failed = results.filter((result) => !result.ok).length;
  const notRun = stages.slice(stagesRun).flat().length;
  console.log(`steps: ${results.length - failed} passed, ${failed} failed${notRun ? `, ${notRun} skipped` : ''}`);
  return failed > 0 ? 1 : 0;
}

main().then((code) => process.exit(code));
