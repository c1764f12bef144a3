import type { ActionModule } from '@/lib/actions/types';

/** The automatic checks after Shape, in the order they run (docs/design.md §1). */
export type GateName = 'meaning' | 'authority' | 'rules' | 'routing';

/** What every gate looks at: one action's validated arguments inside one tenant. */
export type GateSubject = {
  tenantId: string;
  action: ActionModule;
  args: Record<string, unknown>;
};

/**
 * Why a gate said no. Each caller words it for its own audience: intake answers Meaning and
 * Authority with one byte-identical not_authorized, the decision-time check names what moved.
 */
export type Refusal = { gate: GateName; code: string; message: string };

/** A gate's answer: passed with what it found, or refused with why (a gate's `Refusal`, or the caller's own). */
export type Verdict<T, Why = Refusal> = { ok: true; value: T } | { ok: false; refusal: Why };

/**
 * One gate: the subject, what this gate needs besides it (clients, the transaction, what earlier
 * gates found), and a verdict. A system of record that cannot answer is not a verdict: its
 * SystemsUnavailableError is thrown, and each caller fails closed in its own way.
 */
export type Gate<Input, Value> = (subject: GateSubject, input: Input) => Promise<Verdict<Value>>;

export const pass = <T>(value: T): Verdict<T, never> => ({ ok: true, value });

export const refuse = (gate: GateName, code: string, message: string): Verdict<never> => ({
  ok: false,
  refusal: { gate, code, message },
});
