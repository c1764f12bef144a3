import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CORPUS_FIGURES_FILE, type CorpusFigures } from '@/lib/contracts/corpus-figures';
import { type CorpusRun, failures, summarize } from './run';

/** The headline figures of one corpus run, per action and contract version: gates beside the permissive baseline. */
export function corpusFigures(run: CorpusRun, measuredAt = new Date()): CorpusFigures {
  return {
    measuredAt: measuredAt.toISOString(),
    passed: failures(run).length === 0,
    suites: run.suites.map((suite) => {
      const { action, version, cases, gates, baseline } = summarize(suite);
      return { action, version, cases, gates, baseline };
    }),
  };
}

/** Keeps a full run's figures where the Contracts page reads them (corpus/last-run.json). */
export async function writeCorpusFigures(
  run: CorpusRun,
  file = path.join(process.cwd(), CORPUS_FIGURES_FILE),
): Promise<void> {
  await writeFile(file, `${JSON.stringify(corpusFigures(run), null, 2)}\n`);
}
