/**
 * `npm test`: type check, lint, unit, contracts lint, integration (PGlite, and PostgreSQL when
 * DATABASE_URL is set), production build, end-to-end, and with PostgreSQL short runs of the bench and
 * the resilience checks. Stops at the first failing step.
 */
import { spawnSync } from 'node:child_process';
import { childEnvironment, env } from '@/lib/env';

type Step = { name: string; command: string[] };

const npx = (bin: string, ...args: string[]) => ['node', `node_modules/${bin}`, ...args];

const steps: Step[] = [
  { name: 'type check', command: npx('typescript/bin/tsc', '--noEmit') },
  { name: 'lint', command: npx('eslint/bin/eslint.js', '.', '--max-warnings=0') },
  { name: 'unit', command: npx('vitest/vitest.mjs', 'run', '--project', 'unit') },
  { name: 'contracts lint', command: ['node', '--import', 'tsx', 'scripts/cli.ts', 'contracts:lint'] },
  { name: 'integration on PGlite', command: npx('vitest/vitest.mjs', 'run', '--project', 'integration-pglite') },
];
if (env().DATABASE_URL) {
  steps.push({ name: 'integration on PostgreSQL', command: npx('vitest/vitest.mjs', 'run', '--project', 'integration-postgres') });
}
steps.push(
  { name: 'build', command: npx('next/dist/bin/next', 'build') },
  { name: 'e2e', command: ['node', '--import', 'tsx', 'scripts/e2e.ts'] },
);
// Short runs of the bench and the resilience checks (both need PostgreSQL), so neither script rots;
// their numbers go to a temporary folder, never over the published ones.
if (env().DATABASE_URL) {
  steps.push(
    { name: 'bench (short)', command: ['node', '--import', 'tsx', 'scripts/bench.ts', '--short', '--no-build'] },
    { name: 'resilience (short)', command: ['node', '--import', 'tsx', 'scripts/resilience.ts', '--short', '--seed', '1'] },
  );
}

const results: { name: string; ok: boolean; seconds: number }[] = [];
for (const step of steps) {
  console.log(`\n━━ ${step.name} ━━`);
  const started = Date.now();
  const [bin, ...args] = step.command;
  const run = spawnSync(bin!, args, { stdio: 'inherit', env: childEnvironment({ NEXT_TELEMETRY_DISABLED: '1' }) });
  const ok = run.status === 0;
  results.push({ name: step.name, ok, seconds: (Date.now() - started) / 1000 });
  if (!ok) break;
}

console.log('\n━━ summary ━━');
for (const result of results) console.log(`${result.ok ? '✓' : '✗'} ${result.name} (${result.seconds.toFixed(1)} s)`);
if (!env().DATABASE_URL) console.log('• integration on PostgreSQL not run: set DATABASE_URL to a PostgreSQL server to include it');
const failed = results.filter((r) => !r.ok).length;
const notRun = steps.length - results.length;
console.log(`steps: ${results.length - failed} passed, ${failed} failed${notRun ? `, ${notRun} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
