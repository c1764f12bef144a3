import type { ProposalFlag } from '@/lib/records';

const LOOK: Record<ProposalFlag['kind'], string> = {
  suspicious_evidence: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  invisible_characters: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  lookalike_characters: 'bg-red-100 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-200 dark:ring-red-800',
  near_bound: 'bg-amber-100 text-amber-900 ring-amber-300 dark:bg-amber-950 dark:text-amber-200 dark:ring-amber-800',
  first_use: 'bg-sky-100 text-sky-900 ring-sky-300 dark:bg-sky-950 dark:text-sky-200 dark:ring-sky-800',
};

/**
 * The gates' flags as chips with words (colour is never the only signal). `detailed` spells out
 * each flag's specifics below its chip (dialogs, the proposal page); otherwise they are the tooltip.
 */
export function FlagChips({ flags, detailed = false, testId = 'flags' }: { flags: ProposalFlag[]; detailed?: boolean; testId?: string }) {
  if (flags.length === 0) return null;
  if (detailed) {
    return (
      <ul data-testid={testId} aria-label="Flags" className="space-y-1.5 text-sm">
        {flags.map((flag, index) => (
          <li key={index} data-testid="flag" data-flag={flag.kind} className="flex flex-wrap items-baseline gap-x-2">
            <Chip flag={flag} />
            <span className="min-w-0 break-words text-zinc-700 dark:text-zinc-300">{flag.detail}</span>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <span data-testid={testId} className="inline-flex flex-wrap gap-1">
      {flags.map((flag, index) => (
        <Chip key={index} flag={flag} />
      ))}
    </span>
  );
}

function Chip({ flag }: { flag: ProposalFlag }) {
  return (
    <span data-testid="flag-chip" data-flag={flag.kind} title={flag.detail} className={`inline-flex shrink-0 items-center gap-1 rounded-full px-2 py-0.5 text-xs font-medium ring-1 ${LOOK[flag.kind]}`}>
      <span aria-hidden="true">⚑</span>
      {flag.label}
    </span>
  );
}
