import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

const side = z.object({ invalidAccepted: z.int(), invalidTotal: z.int(), validRejected: z.int(), validTotal: z.int() });

/**
 * The headline figures of the last full `npm run corpus` (corpus/last-run.json, written by the
 * corpus script): per action and contract version, invalid accepted / invalid and valid rejected /
 * valid, for the gates and the permissive baseline, and when they were measured.
 */
export const corpusFiguresSchema = z.object({
  measuredAt: z.iso.datetime(),
  passed: z.boolean(),
  suites: z.array(z.object({ action: z.string(), version: z.int(), cases: z.int(), gates: side, baseline: side })),
});

export type CorpusFigures = z.infer<typeof corpusFiguresSchema>;

export const CORPUS_FIGURES_FILE = path.join('corpus', 'last-run.json');

/** The last run's figures, or undefined when the corpus was never run here (or the file is not ours). */
export async function lastCorpusFigures(
  file = path.join(process.cwd(), CORPUS_FIGURES_FILE),
): Promise<CorpusFigures | undefined> {
  // Not a build input: without the comment the standalone build traces the whole project for it.
  const text = await readFile(/* turbopackIgnore: true */ file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = corpusFiguresSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
