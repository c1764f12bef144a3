/**
 * `npm run corpus [-- <action> …]`: runs the versioned corpus (corpus/<action>/v<N>/*.json)
 * through the real intake path — envelope limits, then the Shape, Meaning, Authority and Routing
 * gates, on a fresh in-memory PGlite with the demo seed and the demo systems of record — and
 * through the permissive baseline, and prints both side by side. Exits 1 when the gates accept
 * an invalid request, reject a valid one, or any case's expectation is not met; 2 when the corpus
 * itself is malformed. A run of the whole corpus (no action named) writes its figures to
 * corpus/last-run.json, which the dashboard's Contracts page shows with the time it was measured.
 */
import { writeCorpusFigures } from '@/corpus/figures';
import { CorpusFormatError } from '@/corpus/format';
import { failures, formatReport, runCorpus } from '@/corpus/run';

async function main(): Promise<number> {
  const actions = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  try {
    const run = await runCorpus({ actions: actions.length > 0 ? actions : undefined });
    console.log(formatReport(run));
    if (actions.length === 0) await writeCorpusFigures(run);
    return failures(run).length === 0 ? 0 : 1;
  } catch (error) {
    if (error instanceof CorpusFormatError) {
      console.error(`corpus: ${error.message}`);
      return 2;
    }
    throw error;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
