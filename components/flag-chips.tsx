import type { ProposalFlag } from '@/lib/records';
import { Badge, type BadgeTone } from './ui/badge';

const TONE: Record<ProposalFlag['kind'], BadgeTone> = {
  suspicious_evidence: 'danger',
  invisible_characters: 'danger',
  lookalike_characters: 'danger',
  unscanned_text: 'danger',
  near_bound: 'warning',
  first_use: 'info',
};

/**
 * The gates' flags as chips with words (colour is never the only signal). `detailed` spells out
 * each flag's specifics below its chip (dialogs, the proposal page); otherwise they are the tooltip.
 */
export function FlagChips({
  flags,
  detailed = false,
  testId = 'flags',
}: {
  flags: ProposalFlag[];
  detailed?: boolean;
  testId?: string;
}) {
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
    <Badge tone={TONE[flag.kind]} data-testid="flag-chip" data-flag={flag.kind} title={flag.detail}>
      <span aria-hidden="true">⚑</span>
      {flag.label}
    </Badge>
  );
}
