import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Writes a measurement's results.json and results.md: into `<folder>/` of the checkout for a full
 * run (what docs/performance.md quotes), into a temporary folder for a --short one (CI, `npm test`), so a
 * short run never replaces the published numbers. Answers where they went.
 */
export function writeResultFiles(
  folder: 'bench' | 'resilience',
  short: boolean,
  results: object,
  markdown: string,
): string {
  const dir = short ? path.join(os.tmpdir(), `countersign-${folder}-short`) : path.join(process.cwd(), folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'results.md'), markdown);
  return path.relative(process.cwd(), dir) || '.';
}
