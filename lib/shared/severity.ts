import type { FlagKind } from '@/db/proposal-flags';

/**
 * One severity for a proposal, shown the same on the queue's pill, the preview, the confirm dialog
 * and the proposal page: the action's risk, raised by what the gates flagged and by the quorum it
 * needs, so a low-risk refund citing a suspicious ticket and needing two approvers never reads
 * "low". Type imports only: client components use it.
 */
export const SEVERITY_LEVELS = ['low', 'medium', 'high'] as const;
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];

export type Severity = {
  level: SeverityLevel;
  /**
   * What raised it above the action's risk, in words ("suspicious evidence", "needs 2 approvers"); empty when nothing
   * did.
   */
  raisedBy: string[];
};

export type SeverityInput = { risk: string; flags: { kind: FlagKind }[]; approvalsNeeded: number };

/** Flags that say someone may be deceiving the approver: high on their own. */
const DECEPTIVE: Partial<Record<FlagKind, string>> = {
  suspicious_evidence: 'suspicious evidence',
  invisible_characters: 'invisible characters',
  lookalike_characters: 'look-alike characters',
  // Past the scan budget: whatever it hides was not looked for, so it counts as if it were found.
  unscanned_text: 'text not scanned',
};
/** Flags that call for a closer look: at least medium. */
const NOTABLE: Partial<Record<FlagKind, string>> = { near_bound: 'near a bound', first_use: 'first use' };

const rank = (level: SeverityLevel) => SEVERITY_LEVELS.indexOf(level);
const asLevel = (risk: string): SeverityLevel =>
  (SEVERITY_LEVELS as readonly string[]).includes(risk) ? (risk as SeverityLevel) : 'low';

export function severityOf({ risk, flags, approvalsNeeded }: SeverityInput): Severity {
  const base = asLevel(risk);
  let level = base;
  const raisedBy: string[] = [];
  const raise = (to: SeverityLevel, why: string) => {
    if (rank(to) <= rank(base)) return;
    if (rank(to) > rank(level)) level = to;
    if (!raisedBy.includes(why)) raisedBy.push(why);
  };
  for (const flag of flags) {
    const deceptive = DECEPTIVE[flag.kind];
    if (deceptive) raise('high', deceptive);
    const notable = NOTABLE[flag.kind];
    if (notable) raise('medium', notable);
  }
  if (approvalsNeeded >= 2) raise('medium', `needs ${approvalsNeeded} approvers`);
  return { level, raisedBy };
}

/** The pill's words: "high risk", and on hover or for a screen reader what raised it. */
export function severityTitle(severity: Severity, risk: string): string {
  if (severity.raisedBy.length === 0) return `${severity.level} risk`;
  return `${severity.level} risk (the action alone is ${asLevel(risk)}; raised by ${severity.raisedBy.join(', ')})`;
}
