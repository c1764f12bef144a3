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
const outsideProduct = (folders, message) => ({
  group: folders.flatMap((folder) => [`@/${folder}`, `@/${folder}/**`]),
  message,
});
const forbid = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

// Which modules may reach the browser is a place in the tree (lib/client/, lib/shared/), checked by
// dependency-cruiser with the layer order (.dependency-cruiser.cjs).

// Every action is a folder of lib/actions/; outside it the product names none (the pipeline, routes
// and UI take actions from the registry), so its name in a string is refused. A dependency checker
// cannot see strings, hence a lint rule. The demo, tests, corpus and scripts may name actions.
const ACTIONS = fs
  .readdirSync(new URL('./lib/actions/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const actionName = `/\\b(${ACTIONS.join('|')})\\b/`;
const actionNameMessage =
  'Only lib/actions/ names an action; elsewhere the product takes actions from the registry (lib/actions/registry.ts).';
const namesNoAction = {
  'no-restricted-syntax': [
    'error',
    ...['Literal[value=', 'TemplateElement[value.raw=', 'JSXText[value='].map((selector) => ({
      selector: `${selector}${actionName}]`,
      message: actionNameMessage,
    })),
  ],
};
const notTheProduct = outsideProduct(
  ['demo', 'test', 'corpus'],
  'The product (lib, app, components, db) does not import demo/, test/ or corpus/.',
);

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  { files: PRODUCT, ignores: PRODUCT_TESTS, rules: forbid(notTheProduct) },
  { files: PRODUCT, ignores: [...PRODUCT_TESTS, 'lib/actions/**'], rules: namesNoAction },
  {
    files: PRODUCT_TESTS,
    rules: forbid(outsideProduct(['corpus'], 'Product tests use test/ and demo/, not the corpus runner.')),
  },
  globalIgnores([
    '.next/**',
    '.data/**',
    'node_modules/**',
    'drizzle/**',
    'test-results/**',
    'playwright-report/**',
    'next-env.d.ts',
  ]),
]);
