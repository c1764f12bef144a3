import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The dependency rules of docs/architecture.md ("Folders and dependency direction") that ESLint
 * enforces; the layer order and what may reach the browser are dependency-cruiser's (test/layers.test.ts).
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, code: string, rule = 'no-restricted-imports'): Promise<boolean> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).some((message) => message.ruleId === rule);
}

describe('import boundaries', () => {
  it.each([
    [
      'a product module importing the demo world',
      true,
      'lib/probe.ts',
      "import { DEMO_PEOPLE } from '@/demo/world';\nexport const probe = DEMO_PEOPLE;\n",
    ],
    [
      'a product module importing the test kit',
      true,
      'lib/probe.ts',
      "import { setupTestDatabase } from '@/test/db';\nexport const probe = setupTestDatabase;\n",
    ],
    [
      'a product test importing the test kit',
      false,
      'lib/probe.test.ts',
      "import { setupTestDatabase } from '@/test/db';\nexport const probe = setupTestDatabase;\n",
    ],
    [
      'a product test importing the corpus runner',
      true,
      'lib/probe.test.ts',
      "import { runCorpus } from '@/corpus/run';\nexport const probe = runCorpus;\n",
    ],
  ])(
    '%s: refused %s',
    async (_label, expected, filePath, code) => {
      expect(await restricted(filePath, code)).toBe(expected);
    },
    30_000,
  );
});

describe('action names', () => {
  it.each([
    ['a product module naming an action in a string', true, 'lib/probe.ts', "export const probe = 'issue_refund';\n"],
    [
      'a route naming an action in a template string',
      true,
      'app/probe.ts',
      'export const probe = (n: number) => `hold_stock ${n}`;\n',
    ],
    [
      'a component naming an action in its text',
      true,
      'components/probe.tsx',
      'export const Probe = () => <p>hold_stock</p>;\n',
    ],
    ['the action naming itself', false, 'lib/actions/issue_refund/probe.ts', "export const probe = 'issue_refund';\n"],
    ['a product test naming an action', false, 'lib/probe.test.ts', "export const probe = 'issue_refund';\n"],
    ['the demo naming an action', false, 'demo/probe.ts', "export const probe = 'issue_refund';\n"],
    ['a word that only contains a name', false, 'lib/probe.ts', "export const probe = 'reissue_refunds';\n"],
  ])(
    '%s: refused %s',
    async (_label, expected, filePath, code) => {
      expect(await restricted(filePath, code, 'no-restricted-syntax')).toBe(expected);
    },
    30_000,
  );
});
