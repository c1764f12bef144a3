import 'server-only';
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import { isCursorInstant, isRowId } from '@/lib/paging/fields';
import { cursorInstant } from '@/lib/paging/sql';

export const ATTEMPTS_PAGE_SIZE = 50;

export type AttemptsCursor = { createdAt: string; id: string };

/** The page's `?before=&id=` as a cursor, or undefined (the first page) when either is not one we wrote. */
export function attemptsCursorFromSearch(search: { before?: unknown; id?: unknown }): AttemptsCursor | undefined {
  const { before, id } = search;
  if (typeof before !== 'string' || typeof id !== 'string' || !isCursorInstant(before) || !isRowId(id))
    return undefined;
  return { createdAt: before, id };
}

/**
 * Rejected intake attempts of a tenant, newest first, one keyset page at a time; with
 * `exhaustedOnly`, just the requests whose repair chain ran out; with `attemptId`, that one (a
 * link from the Contracts page's shadow disagreements).
 */
export async function rejectedAttempts(
  db: Database,
  tenantId: string,
  options: { cursor?: AttemptsCursor; exhaustedOnly?: boolean; attemptId?: string } = {},
) {
  const { cursor } = options;
  const rows = await db
    .select({ attempt: intakeAttempts, cursorAt: cursorInstant(intakeAttempts.createdAt) })
    .from(intakeAttempts)
    .where(
      and(
        eq(intakeAttempts.tenantId, tenantId),
        eq(intakeAttempts.outcome, 'rejected'),
        options.exhaustedOnly ? eq(intakeAttempts.errorCode, 'repair_limit_reached') : undefined,
        options.attemptId ? eq(intakeAttempts.id, options.attemptId) : undefined,
        cursor
          ? sql`(${intakeAttempts.createdAt}, ${intakeAttempts.id}) < (${cursor.createdAt}::timestamptz, ${cursor.id})`
          : undefined,
      ),
    )
    .orderBy(desc(intakeAttempts.createdAt), desc(intakeAttempts.id))
    .limit(ATTEMPTS_PAGE_SIZE + 1);
  const page = rows.slice(0, ATTEMPTS_PAGE_SIZE);
  const last = page.at(-1);
  return {
    items: page.map((row) => row.attempt),
    next: rows.length > ATTEMPTS_PAGE_SIZE && last ? { createdAt: last.cursorAt, id: last.attempt.id } : null,
  };
}

/** Every attempt of the repair chains these attempts belong to, oldest first (the original leads). */
export async function repairChains(
  db: Database,
  tenantId: string,
  chains: { agentKeyId: string; rootRequestId: string }[],
) {
  if (chains.length === 0) return [];
  const roots = [...new Set(chains.map((chain) => chain.rootRequestId))];
  const keys = [...new Set(chains.map((chain) => chain.agentKeyId))];
  return db
    .select()
    .from(intakeAttempts)
    .where(
      and(
        eq(intakeAttempts.tenantId, tenantId),
        inArray(intakeAttempts.agentKeyId, keys),
        inArray(intakeAttempts.rootRequestId, roots),
      ),
    )
    .orderBy(asc(intakeAttempts.createdAt), asc(intakeAttempts.id))
    .limit(ATTEMPTS_PAGE_SIZE * 5);
}
