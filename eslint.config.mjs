import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

// The product never imports the demo world and its systems of record (demo/), the test kit
// (test/) or the corpus runner (corpus/). The product's own tests may use the test kit and the
// demo world they run against, never the corpus runner.
const PRODUCT_FOLDERS = '{lib,app,components,db}';
const PRODUCT = [`${PRODUCT_FOLDERS}/**`, 'proxy.ts', 'instrumentation.ts', 'next.config.ts'];
const PRODUCT_TESTS = [`${PRODUCT_FOLDERS}/**/*.test.{ts,tsx}`];
const forbid = (folders, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: folders.flatMap((folder) => [`@/${folder}`, `@/${folder}/**`]), message }] }],
});

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  { files: PRODUCT, ignores: PRODUCT_TESTS, rules: forbid(['demo', 'test', 'corpus'], 'The product (lib, app, components, db) does not import demo/, test/ or corpus/.') },
  { files: PRODUCT_TESTS, rules: forbid(['corpus'], 'Product tests use test/ and demo/, not the corpus runner.') },
  globalIgnores(['.next/**', '.data/**', 'node_modules/**', 'drizzle/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts']),
]);
