import { sql } from 'drizzle-orm';
import type { Database } from '@/db';

/** The notification channel that says a command was minted and awaits dispatch. */
export const DISPATCH_CHANNEL = 'countersign_dispatch';

/**
 * Asks every listening worker, in this process or another, to dispatch now instead of at its next
 * interval. Call it in the transaction that writes the `command.minted` outbox row: PostgreSQL
 * delivers a NOTIFY only when that transaction commits (never on rollback), so a woken worker finds
 * the row. Several in one transaction arrive as one. A lost notification only delays the command
 * until the interval; two workers woken at once still claim each row once (SKIP LOCKED).
 */
export async function wakeDispatchOnCommit(tx: Database): Promise<void> {
  await tx.execute(sql`select pg_notify(${DISPATCH_CHANNEL}, '')`);
}
