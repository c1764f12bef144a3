import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents } from '@/db/schema';
import { chainAllPending } from '@/lib/events/chainer';

/** The tenant's `tenant.settings_changed` events, once every pending event is chained. */
export async function settingsEvents(db: Database, tenantId: string) {
  await chainAllPending(db);
  return db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.type, 'tenant.settings_changed')));
}
