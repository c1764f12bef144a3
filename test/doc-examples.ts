import fs from 'node:fs';
import path from 'node:path';

/**
 * The examples the documentation marks as runnable, read from the markdown itself so the docs and
 * the test that runs them (e2e/examples.spec.ts) cannot drift apart. A marker is an HTML comment
 * (invisible on GitHub) right above a fenced block:
 * - `<!-- example: NAME -->`: a command block to run as written, in document order;
 * - `<!-- example-file: FILE -->`: a block the reader saves as FILE, for a later command to run.
 * Unmarked blocks (output samples, configuration excerpts, command references) are not run.
 */
export type DocExample = {
  kind: 'run' | 'file';
  /** The example's name (`run`) or the file the reader saves it as (`file`). */
  name: string;
  lang: string;
  code: string;
  /** `file:line` of the marker, for messages. */
  where: string;
};

const MARKER = /^<!--\s*example(-file)?:\s*(\S+)\s*-->\s*$/;
const FENCE = /^```(\S*)\s*$/;
const ANY_MARKER = /^<!--\s*example/;

export class DocExampleError extends Error {}

/** The marked blocks of one markdown text, in order; a marker that does not sit right above a fenced block is an error. */
export function examplesIn(text: string, file: string): DocExample[] {
  const lines = text.split('\n');
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = MARKER.exec(line.trim());
    if (!marker) {
      if (ANY_MARKER.test(line.trim()))
        throw new DocExampleError(
          `${file}:${i + 1}: not a marker; write <!-- example: NAME --> or <!-- example-file: FILE -->`,
        );
      continue;
    }
    const where = `${file}:${i + 1}`;
    const open = FENCE.exec(lines[i + 1] ?? '');
    if (!open || !open[1])
      throw new DocExampleError(
        `${where}: the marker must be followed by a fenced block with a language (\`\`\`sh, \`\`\`ts)`,
      );
    const end = lines.findIndex((candidate, index) => index > i + 1 && candidate.trim() === '```');
    if (end === -1) throw new DocExampleError(`${where}: the fenced block is never closed`);
    examples.push({
      kind: marker[1] ? 'file' : 'run',
      name: marker[2]!,
      lang: open[1],
      code: `${lines.slice(i + 2, end).join('\n')}\n`,
      where,
    });
    i = end;
  }
  return examples;
}

/** README.md, then docs/*.md alphabetically: the order a reader follows from the README's links. */
export function documentationFiles(root: string): string[] {
  const docs = fs
    .readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Every marked example of the repository's documentation, in reading order, checked for consistency. */
export function documentationExamples(root: string): DocExample[] {
  const examples = documentationFiles(root).flatMap((file) =>
    examplesIn(fs.readFileSync(path.join(root, file), 'utf8'), file),
  );
  checkConsistent(examples);
  return examples;
}

/** Names are unique per kind, and every saved file is run by a later command. */
export function checkConsistent(examples: DocExample[]): void {
  const seen = new Set<string>();
  examples.forEach((example, index) => {
    const key = `${example.kind}:${example.name}`;
    if (seen.has(key))
      throw new DocExampleError(
        `${example.where}: a second ${example.kind === 'run' ? 'example' : 'example-file'} named ${example.name}`,
      );
    seen.add(key);
    if (
      example.kind === 'file' &&
      !examples.slice(index + 1).some((later) => later.kind === 'run' && later.code.includes(example.name))
    ) {
      throw new DocExampleError(`${example.where}: no later example runs ${example.name}`);
    }
  });
}
