import type { ReactNode } from 'react';
import type { GateResult } from '@/lib/records';
import { PayloadText } from './payload-text';

/**
 * The proposal's checks as the gates left them: each passed or failed in words as well as ✓/✗; a
 * failed one (a stale proposal) names its code and what moved, old → new. Above them, `facts`: one
 * "at proposal → now" view of what Meaning read (components/fresh-facts.tsx), so a passed Meaning,
 * which speaks of the facts at proposal, never stands alone beside facts that have moved.
 */
export function ProposalChecks({ gates, facts }: { gates: GateResult[]; facts?: ReactNode }) {
  return (
    <section
      aria-labelledby="checks"
      className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900"
    >
      <h2 id="checks" className="mb-2 font-semibold">
        Checks
      </h2>
      {facts ? (
        <div className="mb-3">
          <h3 className="mb-1 text-sm font-medium">Facts, at proposal and now</h3>
          {facts}
        </div>
      ) : null}
      <ul className="space-y-2 text-sm" data-testid="gates">
        {gates.map((gate) => (
          <li key={gate.gate} className="flex gap-2" data-testid={`gate-${gate.gate}`} data-ok={gate.ok}>
            <span
              aria-hidden
              className={gate.ok ? 'text-green-700 dark:text-green-400' : 'font-bold text-red-700 dark:text-red-400'}
            >
              {gate.ok ? '✓' : '✗'}
            </span>
            <span className="w-20 shrink-0 capitalize">{gate.gate}</span>
            <span className="min-w-0">
              <span
                className={
                  gate.ok ? 'text-green-800 dark:text-green-300' : 'font-medium text-red-800 dark:text-red-300'
                }
                data-testid="gate-verdict"
              >
                {gate.ok ? (gate.gate === 'meaning' ? 'passed at proposal' : 'passed') : 'failed'}
                {!gate.ok && gate.code ? (
                  <>
                    {' '}
                    (<code className="font-mono text-xs">{gate.code}</code>)
                  </>
                ) : null}
                {gate.detail ? ' — ' : null}
              </span>
              <span className={gate.ok ? 'text-zinc-600 dark:text-zinc-400' : 'text-zinc-900 dark:text-zinc-100'}>
                <PayloadText value={gate.detail ?? ''} mono={false} />
              </span>
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
