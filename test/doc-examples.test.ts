import { describe, expect, it } from 'vitest';
import { checkConsistent, documentationExamples, examplesIn } from './doc-examples';

const md = (...lines: string[]) => lines.join('\n');

describe('examplesIn', () => {
  it('reads the marked blocks in order and leaves unmarked ones alone', () => {
    const text = md(
      '# Title',
      '```sh',
      'echo unmarked',
      '```',
      '<!-- example-file: hello.mts -->',
      '```ts',
      "console.log('hello');",
      '```',
      'Run it:',
      '',
      '<!-- example: hello -->',
      '```sh',
      'npx tsx hello.mts',
      '```',
    );
    expect(examplesIn(text, 'a.md')).toEqual([
      { kind: 'file', name: 'hello.mts', lang: 'ts', code: "console.log('hello');\n", where: 'a.md:5' },
      { kind: 'run', name: 'hello', lang: 'sh', code: 'npx tsx hello.mts\n', where: 'a.md:11' },
    ]);
  });

  it('refuses a marker that is not right above a fenced block, naming where it is', () => {
    expect(() => examplesIn(md('text', '<!-- example: lost -->', '', '```sh', 'true', '```'), 'b.md')).toThrow(
      'b.md:2: the marker must be followed by a fenced block',
    );
    expect(() => examplesIn(md('<!-- example: bare -->', '```', 'true', '```'), 'b.md')).toThrow('with a language');
    expect(() => examplesIn(md('<!-- example: open -->', '```sh', 'true'), 'c.md')).toThrow(
      'c.md:1: the fenced block is never closed',
    );
  });

  it('refuses a misspelt marker instead of silently not running its block', () => {
    expect(() => examplesIn(md('<!-- example hold -->', '```sh', 'true', '```'), 'd.md')).toThrow(
      'd.md:1: not a marker',
    );
  });
});

describe('checkConsistent', () => {
  const run = (name: string, code: string) => ({ kind: 'run' as const, name, lang: 'sh', code, where: `x.md:${name}` });
  const file = (name: string) => ({ kind: 'file' as const, name, lang: 'ts', code: '', where: `x.md:${name}` });

  it('refuses two examples of one name', () => {
    expect(() => checkConsistent([run('a', 'true'), run('a', 'false')])).toThrow('a second example named a');
  });

  it('refuses a saved file that no later command runs', () => {
    expect(() => checkConsistent([run('first', 'npx tsx a.mts'), file('a.mts')])).toThrow(
      'no later example runs a.mts',
    );
    expect(() => checkConsistent([file('a.mts'), run('then', 'npx tsx a.mts')])).not.toThrow();
  });
});

describe("the repository's documentation", () => {
  it('marks its runnable examples consistently, the README first', () => {
    const examples = documentationExamples(process.cwd());
    expect(examples.length).toBeGreaterThan(0);
    expect(examples[0]!.where).toMatch(/^README\.md:/);
    for (const example of examples) expect(['sh', 'ts'], example.where).toContain(example.lang);
  });
});
