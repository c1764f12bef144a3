import fs from 'node:fs';
import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

// The product never imports the demo world and its systems of record (demo/), the test kit
// (test/) or the corpus runner (corpus/). The product's own tests may use the test kit and the
// demo world they run against, never the corpus runner.
const PRODUCT_FOLDERS = '{lib,app,components,db}';
const PRODUCT = [`${PRODUCT_FOLDERS}/**`, 'proxy.ts', 'instrumentation.ts', 'next.config.ts'];
const PRODUCT_TESTS = [`${PRODUCT_FOLDERS}/**/*.test.{ts,tsx}`];
const outsideProduct = (folders, message) => ({ group: folders.flatMap((folder) => [`@/${folder}`, `@/${folder}/**`]), message });
const forbid = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

// Components also run in the browser: from db/ and lib/ they take types only, except the few
// client-safe modules. (Modules only the Next server loads are marked `server-only` as well; the
// ones the CLI, worker and demo scripts share cannot be, since plain Node refuses that marker.)
const CLIENT_SAFE = ['decisions/requests', 'input/request-body', 'client', 'text', 'proposals/queue-view', 'proposals/fresh-facts', 'proposals/words', 'audit/history-view', 'events/registry', 'money', 'ids', 'severity', 'policy/words', 'oversight/words', 'grants/requests'];
const serverCode = {
  // gitignore semantics: a path is re-included only with its parent folders.
  group: ['@/db', '@/db/**', '@/lib/**', ...new Set(CLIENT_SAFE.flatMap((path) => [`!@/lib/${path.split('/')[0]}`, `!@/lib/${path}`, `!@/lib/${path}/**`]))],
  allowTypeImports: true,
  message: 'Components may import db/ and lib/ as types only (client-safe: lib/decisions/requests, lib/input/request-body, lib/client, lib/text, lib/proposals/queue-view, lib/proposals/fresh-facts, lib/proposals/words, lib/audit/history-view, lib/events/registry, lib/money, lib/ids, lib/severity, lib/policy/words, lib/oversight/words, lib/grants/requests).',
};
// Every action is a folder of lib/actions/; outside it the product names none (the pipeline, routes
// and UI take actions from the registry), so its name in a string is refused. A dependency checker
// cannot see strings, hence a lint rule. The demo, tests, corpus and scripts may name actions.
const ACTIONS = fs.readdirSync(new URL('./lib/actions/', import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
const actionName = `/\\b(${ACTIONS.join('|')})\\b/`;
const actionNameMessage = 'Only lib/actions/ names an action; elsewhere the product takes actions from the registry (lib/actions/registry.ts).';
const namesNoAction = {
  'no-restricted-syntax': ['error', ...['Literal[value=', 'TemplateElement[value.raw=', 'JSXText[value='].map((selector) => ({ selector: `${selector}${actionName}]`, message: actionNameMessage }))],
};
const notTheProduct = outsideProduct(['demo', 'test', 'corpus'], 'The product (lib, app, components, db) does not import demo/, test/ or corpus/.');

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  { files: PRODUCT, ignores: PRODUCT_TESTS, rules: forbid(notTheProduct) },
  { files: ['components/**'], ignores: PRODUCT_TESTS, rules: forbid(notTheProduct, serverCode) },
  { files: PRODUCT, ignores: [...PRODUCT_TESTS, 'lib/actions/**'], rules: namesNoAction },
  { files: PRODUCT_TESTS, rules: forbid(outsideProduct(['corpus'], 'Product tests use test/ and demo/, not the corpus runner.')) },
  globalIgnores(['.next/**', '.data/**', 'node_modules/**', 'drizzle/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts']),
]);
