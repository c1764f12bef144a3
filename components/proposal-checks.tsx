import type { GateResult, ProposalDrift } from '@/lib/records';
import { PayloadText } from './payload-text';

const clockOf = (iso: string) => `${iso.slice(11, 16)} UTC`;

/**
 * The proposal's checks as the gates left them: each passed or failed in words as well as ✓/✗; a
 * failed one (a stale proposal) names its code and what moved, old → new. A pending proposal whose
 * resource moved while it still holds says so above them ("Changed since proposed: …").
 */
export function ProposalChecks({ gates, drift }: { gates: GateResult[]; drift: ProposalDrift | null }) {
  return (
    <section aria-labelledby="checks" className="rounded-lg border border-zinc-200 bg-white p-4 dark:border-zinc-800 dark:bg-zinc-900">
      <h2 id="checks" className="mb-2 font-semibold">Checks</h2>
      {drift ? (
        <p data-testid="drift-note" className="mb-3 rounded-md border border-amber-300 bg-amber-50 p-2 text-sm text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-200">
          <span className="font-medium">Changed since proposed:</span> <PayloadText value={drift.description} mono={false} />{' '}
          <span className="whitespace-nowrap">(checked {clockOf(drift.checkedAt)}; it still holds)</span>
        </p>
      ) : null}
      <ul className="space-y-2 text-sm" data-testid="gates">
        {gates.map((gate) => (
          <li key={gate.gate} className="flex gap-2" data-testid={`gate-${gate.gate}`} data-ok={gate.ok}>
            <span aria-hidden className={gate.ok ? 'text-green-700 dark:text-green-400' : 'font-bold text-red-700 dark:text-red-400'}>{gate.ok ? '✓' : '✗'}</span>
            <span className="w-20 shrink-0 capitalize">{gate.gate}</span>
            <span className="min-w-0">
              <span className={gate.ok ? 'text-green-800 dark:text-green-300' : 'font-medium text-red-800 dark:text-red-300'} data-testid="gate-verdict">
                {gate.ok ? 'passed' : 'failed'}
                {!gate.ok && gate.code ? <> (<code className="font-mono text-xs">{gate.code}</code>)</> : null}
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
