/**
 * Risk flags: what the gates noticed about a proposal besides its risk level, kept with it and
 * shown wherever it is decided (queue row, confirm dialog, proposal page). The shapes of the
 * proposals.flags and proposals.drift columns; no imports. Components take them from lib/records.ts.
 */

/** What Meaning read of a resource: JSON scalars, shown to people and fed to rules (never hashed). */
export type Facts = Record<string, string | number | boolean | null>;

export const FLAG_KINDS = [
  'suspicious_evidence',
  'invisible_characters',
  'lookalike_characters',
  'unscanned_text',
  'near_bound',
  'first_use',
] as const;
export type FlagKind = (typeof FLAG_KINDS)[number];

export type ProposalFlag = {
  kind: FlagKind;
  /** A short chip label ("Suspicious evidence"). */
  label: string;
  /** The specifics in words, naming fields and code points ("reason: U+202E RIGHT-TO-LEFT OVERRIDE"). */
  detail: string;
};

/**
 * What a background re-check found when the resource moved but the proposal still holds:
 * shown ("changed since proposed"), not fatal.
 */
export type ProposalDrift = {
  checkedAt: string;
  /** The facts read at that check. */
  facts: Facts;
  /** In words, old → new ("order balance changed from 100.00 to 60.00 USD since it was proposed"). */
  description: string;
};
