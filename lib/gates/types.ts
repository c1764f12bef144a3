import type { ActionModule, RuleAgent } from '@/lib/actions/types';
import type { ErrorKey } from '@/lib/errors/codes';

/** The automatic checks after Shape, in the order they run (docs/design.md §1). */
export type GateName = 'meaning' | 'authority' | 'rules' | 'routing';

/** What every gate looks at: one action's validated arguments inside one tenant. */
export type GateSubject = {
  tenantId: string;
  action: ActionModule;
  args: Record<string, unknown>;
  /** The contract version the arguments were checked against, when known (a resolver is told it). */
  contractVersion?: number;
  /** The proposing agent key, when a rule may read it (intake and execution). */
  agent?: RuleAgent;
};

/**
 * Why a gate said no, as data (a code of the closed table, lib/errors/codes.ts). Each caller words
 * it for its own audience: intake answers Meaning and Authority with one byte-identical
 * not_authorized and throws the rest as a Refusal; the decision-time check names what moved.
 */
export type GateRefusal = { gate: GateName; code: ErrorKey; message: string; ruleCode?: string };

/** A gate's answer: passed with what it found, or refused with why (a `GateRefusal`, or the caller's own). */
export type Verdict<T, Why = GateRefusal> = { ok: true; value: T } | { ok: false; refusal: Why };

/**
 * One gate: the subject, what this gate needs besides it (clients, the transaction, what earlier
 * gates found), and a verdict. A system of record that cannot answer is not a verdict: its
 * SystemsUnavailableError is thrown, and each caller fails closed in its own way.
 */
export type Gate<Input, Value> = (subject: GateSubject, input: Input) => Promise<Verdict<Value>>;

export const pass = <T>(value: T): Verdict<T, never> => ({ ok: true, value });

export const refuse = (gate: GateName, code: ErrorKey, message: string): Verdict<never> => ({
  ok: false,
  refusal: { gate, code, message },
});
