import 'server-only';
import { and, desc, eq, lt } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents, type AuditEvent } from '@/db/schema';

export const HISTORY_PAGE_SIZE = 50;

/** One keyset page of a tenant's audit events, newest first; `before` is a sequence number. */
export async function auditPage(db: Database, tenantId: string, before?: number): Promise<{ items: AuditEvent[]; nextBefore: number | null }> {
  const rows = await db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), before ? lt(auditEvents.seq, before) : undefined))
    .orderBy(desc(auditEvents.seq))
    .limit(HISTORY_PAGE_SIZE + 1);
  const items = rows.slice(0, HISTORY_PAGE_SIZE);
  return { items, nextBefore: rows.length > HISTORY_PAGE_SIZE ? (items.at(-1)?.seq ?? null) : null };
}
