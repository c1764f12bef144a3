import { eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { memberships } from '@/db/schema';
import { recordStateChange, type StateChange } from '@/lib/events/record';

/** What an account event says; the tenant comes from the person's memberships. */
export type AccountEvent = Omit<StateChange, 'tenantId' | 'outbox'>;

/**
 * Records an event about a person's account (sign-in, sign-out, a lock, a new password) in the
 * trail of every tenant they belong to, in the caller's transaction: people are not tenant-scoped,
 * and each tenant's auditor sees what happened to its members. A person in no tenant leaves no
 * event: there is no trail to put it in, and nothing is recorded about unknown accounts at all.
 */
export async function recordAccountEvent(tx: Database, userId: string, event: AccountEvent): Promise<number> {
  const rows = await tx
    .select({ tenantId: memberships.tenantId })
    .from(memberships)
    .where(eq(memberships.userId, userId))
    .orderBy(memberships.tenantId);
  for (const { tenantId } of rows) await recordStateChange(tx, { ...event, tenantId, outbox: false });
  return rows.length;
}

/** Failed sign-ins are checked by the sign-in code, not by a person. */
const SIGN_IN_CHECK = { type: 'system' as const, id: 'sign-in' };

/**
 * The `auth.sign_in_failed` event of a known account: which account was named, how, and why it
 * was refused (`wrong_password`, `email_unverified`). Never the password; the email only as the
 * account's id, so an unknown email, which has no account, is never written anywhere.
 */
export function signInFailedEvent(input: {
  userId: string;
  method: 'credentials' | 'oidc';
  reasonCode: string;
  address?: string;
  now?: Date;
}): AccountEvent {
  return {
    type: 'auth.sign_in_failed',
    actor: SIGN_IN_CHECK,
    reasonCode: input.reasonCode,
    data: { user: input.userId, method: input.method, ...(input.address ? { address: input.address } : {}) },
    occurredAt: input.now,
  };
}
