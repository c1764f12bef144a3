import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/** The dependency rules of docs/architecture.md ("Folders and dependency direction"), as ESLint enforces them. */
const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, code: string): Promise<boolean> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).some((message) => message.ruleId === 'no-restricted-imports');
}

describe('import boundaries', () => {
  it.each([
    ['a component importing the database', true, 'components/probe.tsx', "import { getDb } from '@/db';\nexport const probe = getDb;\n"],
    ['a component importing a domain function', true, 'components/probe.tsx', "import { decide } from '@/lib/decisions/decide';\nexport const probe = decide;\n"],
    ['a component importing the proposal view model as a value', true, 'components/probe.tsx', "import { proposalDetail } from '@/lib/proposals/view';\nexport const probe = proposalDetail;\n"],
    ['a component importing schema types', false, 'components/probe.tsx', "import type { Proposal } from '@/db/schema';\nexport type Probe = Proposal;\n"],
    ['a component importing the operator API client', false, 'components/probe.tsx', "import { postDecision } from '@/lib/client/operator-api';\nexport const probe = postDecision;\n"],
    ['a component importing the id patterns', false, 'components/probe.tsx', "import { isProposalId } from '@/lib/ids';\nexport const probe = isProposalId;\n"],
    ['a product module importing the demo world', true, 'lib/probe.ts', "import { DEMO_PEOPLE } from '@/demo/world';\nexport const probe = DEMO_PEOPLE;\n"],
    ['a product module importing the test kit', true, 'lib/probe.ts', "import { setupTestDatabase } from '@/test/db';\nexport const probe = setupTestDatabase;\n"],
    ['a product test importing the test kit', false, 'lib/probe.test.ts', "import { setupTestDatabase } from '@/test/db';\nexport const probe = setupTestDatabase;\n"],
    ['a product test importing the corpus runner', true, 'lib/probe.test.ts', "import { runCorpus } from '@/corpus/run';\nexport const probe = runCorpus;\n"],
  ])('%s: refused %s', async (_label, expected, filePath, code) => {
    expect(await restricted(filePath, code)).toBe(expected);
  }, 30_000);
});
