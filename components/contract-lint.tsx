import type { RuntimeName, VersionLint } from '@/lib/contracts/lint';

/**
 * What the major tool-calling runtimes make of a version's schema in strict mode (`npm run cli --
 * contracts:lint`): errors are schemas they refuse or no value satisfies; warnings are bounds they
 * drop, which only intake then enforces.
 */
export function ContractLintView({
  lint,
  runtimeLabels,
}: {
  lint: VersionLint;
  runtimeLabels: Record<RuntimeName, string>;
}) {
  const summary =
    lint.errors > 0
      ? `${lint.errors} error${lint.errors === 1 ? '' : 's'}: a strict runtime refuses this schema or no value ` +
        `satisfies it`
      : lint.warnings > 0
        ? `No errors · ${lint.warnings} warning${lint.warnings === 1 ? '' : 's'}: bounds some runtimes drop ` +
          `(intake still enforces them)`
        : 'No errors or warnings: every strict runtime enforces this schema as written';
  return (
    <details data-testid="contract-lint" data-errors={lint.errors} data-warnings={lint.warnings}>
      <summary
        className={
          'cursor-pointer text-xs ' +
          (lint.errors > 0 ? 'font-medium text-red-800 dark:text-red-300' : 'text-zinc-600 dark:text-zinc-400')
        }
      >
        Model runtimes: {summary}
      </summary>
      {lint.findings.length > 0 ? (
        <ul className="mt-2 space-y-1 text-xs">
          {lint.findings.map((finding, index) => (
            <li key={index} data-testid="lint-finding" data-code={finding.code} className="flex flex-wrap gap-x-2">
              <span
                className={
                  finding.severity === 'error'
                    ? 'font-semibold text-red-800 dark:text-red-300'
                    : 'font-medium text-amber-900 dark:text-amber-200'
                }
              >
                {finding.severity}
              </span>
              <span className="font-mono">{finding.path}</span>
              <span>{finding.message}</span>
              {finding.runtimes.length > 0 ? (
                <span className="text-zinc-600 dark:text-zinc-400">
                  ({finding.runtimes.map((name) => runtimeLabels[name]).join('; ')})
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </details>
  );
}
