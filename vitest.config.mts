import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { UNIT_ISOLATED } from './test/unit-isolation';

/**
 * Five projects (run one with `vitest run --project <name>`), each over the product (`lib/`), the
 * demo world and its systems of record (`demo/`), the corpus runner (`corpus/`) and the test kit
 * (`test/`):
 * - unit: `*.test.ts`, no database, every file in one shared module graph per worker (`isolate:
 *   false`: about a third of the CPU of a fresh graph per file); a file that leaves the environment
 *   or a global changed fails (test/unit-leaks.ts).
 * - unit-isolated: the unit files that mock modules or stub the environment (UNIT_ISOLATED in
 *   test/unit-isolation.ts), each in a fresh module graph. `npm test` runs both unit projects.
 * - integration-pglite: `*.int.test.ts`, each file on its own in-memory PGlite, a copy of one
 *   migrated in test/pglite-global-setup.ts. With `COUNTERSIGN_PGLITE_SET=conformance` (what
 *   `npm test` sets when PostgreSQL runs every file) only the files where the driver matters.
 * - integration-postgres: the same files plus the PostgreSQL-only ones (`*.postgres.int.test.ts`:
 *   real concurrency), each file in its own `cs_test_<random>` database on DATABASE_URL. Without
 *   DATABASE_URL this project fails before running anything (test/postgres-global-setup.ts).
 * - components: `*.test.tsx` under components/, React hooks and components in jsdom with Testing Library.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

const FOLDERS = '{lib,demo,corpus,test}';
const UNIT = `${FOLDERS}/**/*.test.ts`;
const INTEGRATION = `${FOLDERS}/**/*.int.test.ts`;
const POSTGRES_ONLY = `${FOLDERS}/**/*.postgres.int.test.ts`;
/**
 * The origins integration tests' definitions may name (ACTION_ALLOWED_ORIGINS): the demo's systems
 * and the team services lib/definitions/chain.postgres.int.test.ts and evidence-route.postgres.int.test.ts run.
 */
const TEST_SERVICE_ORIGINS = 'http://127.0.0.1:4010,http://127.0.0.1:4790,http://127.0.0.1:4791';

// Where the embedded driver behaves differently from PostgreSQL: migrations and triggers, the
// LISTEN/NOTIFY stand-in, the chainer, idempotency, the read cache, the embedded demo path. The rest
// of the integration files test the product, not the driver, and run once, on PostgreSQL.
const PGLITE_CONFORMANCE = [
  'lib/database.int.test.ts',
  'lib/audit/audit.int.test.ts',
  'lib/events/chainer.int.test.ts',
  'lib/events/record.int.test.ts',
  'lib/jobs/wake.int.test.ts',
  'lib/jobs/worker.int.test.ts',
  'lib/jobs/dispatch-commands.int.test.ts',
  'lib/intake/intake.int.test.ts',
  'lib/intake/cached-reads.int.test.ts',
  'lib/notifications/notifications.int.test.ts',
  'lib/definitions/store.int.test.ts',
  'demo/seed.int.test.ts',
  'test/start-failures.int.test.ts',
];
const pgliteInclude = process.env.COUNTERSIGN_PGLITE_SET === 'conformance' ? PGLITE_CONFORMANCE : [INTEGRATION];

// Two cores: two integration files at a time keeps the machine responsive and the run short.
const integration = {
  include: [INTEGRATION],
  environment: 'node' as const,
  maxWorkers: 2,
  testTimeout: 30_000,
  hookTimeout: 120_000,
};

// The first import of a route's module graph can take seconds on a loaded machine; the default
// 5 s made test/api-routes.test.ts fail on a busy CI run.
const unit = { environment: 'node' as const, testTimeout: 30_000 };

// Each project is inline (no `extends: true`, which would load this file once more per project).
// `server-only` throws outside React's server build; under test, its server-side (empty) module.
const resolve = {
  alias: [
    { find: /^@\//, replacement: root },
    { find: /^server-only$/, replacement: `${root}node_modules/server-only/empty.js` },
  ],
};

export default defineConfig({
  resolve,
  test: {
    projects: [
      {
        resolve,
        test: {
          ...unit,
          name: 'unit',
          include: [UNIT],
          exclude: [...configDefaults.exclude, INTEGRATION, ...UNIT_ISOLATED],
          isolate: false,
          setupFiles: ['test/unit-leaks.ts'],
        },
      },
      {
        resolve,
        test: {
          ...unit,
          name: 'unit-isolated',
          include: UNIT_ISOLATED,
        },
      },
      {
        resolve,
        test: {
          name: 'components',
          include: ['components/**/*.test.tsx'],
          environment: 'jsdom',
          setupFiles: ['test/components-setup.ts'],
        },
      },
      {
        resolve,
        test: {
          ...integration,
          name: 'integration-pglite',
          include: pgliteInclude,
          exclude: [...configDefaults.exclude, POSTGRES_ONLY],
          env: { COUNTERSIGN_TEST_DRIVER: 'pglite', ACTION_ALLOWED_ORIGINS: TEST_SERVICE_ORIGINS },
          globalSetup: ['test/pglite-global-setup.ts'],
        },
      },
      {
        resolve,
        test: {
          ...integration,
          name: 'integration-postgres',
          exclude: [...configDefaults.exclude],
          env: { COUNTERSIGN_TEST_DRIVER: 'postgres', ACTION_ALLOWED_ORIGINS: TEST_SERVICE_ORIGINS },
          globalSetup: ['test/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
