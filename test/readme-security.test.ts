import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README's `## Security` section lists each guarantee on one line with the tests that prove it:
 * `- <guarantee> — \`path/to/test\`` (more tests: `, \`another\``). Every named test must exist, so
 * the list cannot promise what nothing checks.
 */
const root = path.resolve(import.meta.dirname, '..');
const LINE = /^- (?<guarantee>\S.*?) — (?<tests>`[^`]+`(?:, `[^`]+`)*)$/;
const TEST_FILE = /\.(test|spec)\.tsx?$/;

type Guarantee = { guarantee: string; tests: string[] };

/** The section's guarantees, or what is wrong with it: a line that is not the format, a test that is not there. */
function securityList(
  readme: string,
  exists: (file: string) => boolean,
): { guarantees: Guarantee[]; problems: string[] } {
  const lines = readme.split('\n');
  const start = lines.indexOf('## Security');
  if (start === -1) return { guarantees: [], problems: ['no "## Security" section'] };
  const end = lines.findIndex((line, index) => index > start && line.startsWith('## '));
  const guarantees: Guarantee[] = [];
  const problems: string[] = [];
  for (const line of lines.slice(start + 1, end === -1 ? undefined : end)) {
    if (!line.startsWith('- ')) continue;
    const match = LINE.exec(line);
    if (!match?.groups) {
      problems.push(`not "- <guarantee> — \`test\`": ${line}`);
      continue;
    }
    const tests = [...match.groups.tests!.matchAll(/`([^`]+)`/g)].map((test) => test[1]!);
    for (const test of tests) {
      if (!TEST_FILE.test(test)) problems.push(`not a test file: ${test}`);
      else if (!exists(test)) problems.push(`no such test: ${test}`);
    }
    guarantees.push({ guarantee: match.groups.guarantee!, tests });
  }
  return { guarantees, problems };
}

const onDisk = (file: string) => fs.existsSync(path.join(root, file));

describe("the README's security guarantees", () => {
  it('each name a test that exists, one line each', () => {
    const { guarantees, problems } = securityList(fs.readFileSync(path.join(root, 'README.md'), 'utf8'), onDisk);
    expect(problems).toEqual([]);
    expect(guarantees.length).toBeGreaterThanOrEqual(20);
  });

  it.each([
    [
      'a test that is not there',
      '- Nothing leaks — `lib/nowhere.int.test.ts`',
      ['no such test: lib/nowhere.int.test.ts'],
    ],
    [
      'a second test that is not there',
      '- Nothing leaks — `test/layers.test.ts`, `e2e/nowhere.spec.ts`',
      ['no such test: e2e/nowhere.spec.ts'],
    ],
    ['a source file named as its test', '- Nothing leaks — `lib/env.ts`', ['not a test file: lib/env.ts']],
    ['a guarantee without its test', '- Nothing leaks', ['not "- <guarantee> — `test`": - Nothing leaks']],
    [
      'a test named outside backquotes',
      '- Nothing leaks — test/layers.test.ts',
      ['not "- <guarantee> — `test`": - Nothing leaks — test/layers.test.ts'],
    ],
    ['no section at all', null, ['no "## Security" section']],
  ])('refuses %s', (_label, line, problems) => {
    const readme =
      line === null
        ? '# Countersign\n'
        : `# Countersign\n\n## Security\n\n- A fine one — \`test/layers.test.ts\`\n${line}\n\n## Next\n\n- not a guarantee\n`;
    expect(securityList(readme, onDisk).problems).toEqual(problems);
  });
});
