import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notificationDeliveries, outbox } from '@/db/schema';
import { setupCountingDatabase, setupTestDatabase } from '@/test/db';
import { submitAs } from '@/test/intake';
import { setupDemoSystems } from '@/test/systems';
import { seededWorld } from '@/test/world';
import { createChannel } from './channels';
import { fanOutNotifications } from './fanout';

/**
 * Fan-out reads what a batch of outbox rows needs (proposals, members, decisions, agent keys) in a
 * few queries and writes the deliveries in one insert: its statement count does not grow with the
 * batch, so notifications keep up with intake instead of competing with it for the database.
 */
const t = setupTestDatabase();
const counting = setupCountingDatabase(t, 'fanout.postgres.int.test.ts');
const systems = setupDemoSystems();
const seeded = seededWorld(t);

describe('notification fan-out', () => {
  it.each([1, 40])(
    'turns %i waiting proposals into their deliveries in the same number of statements',
    async (proposals) => {
      const admin = { type: 'user' as const, id: 'test-admin' };
      if (proposals === 1) {
        for (const kind of ['webhook', 'email'] as const) {
          const target = kind === 'email' ? 'ops@acme.test' : 'https://hooks.example/fanout';
          await createChannel(t.db, 'acme', admin, { kind, target, events: ['proposal.waiting'] });
        }
      }
      await fanOutNotifications(t.db, { baseUrl: 'https://countersign.example' }); // what earlier tests left
      for (let i = 0; i < proposals; i++) {
        const body = {
          requestId: `req_fanout_${proposals}_${i}`,
          action: 'hold_stock',
          contractVersion: 1,
          args: { sku: 'filter-blue', quantity: 1 },
        };
        await submitAs(t.db, systems.client, seeded.acme, body);
      }
      let fanned;
      const statements = await counting.statementsOf(async () => {
        fanned = await fanOutNotifications(counting.db, { baseUrl: 'https://countersign.example' });
      });

      expect(fanned).toEqual({ events: proposals, deliveries: proposals * 2 });
      const [email] = await t.db
        .select({ n: count() })
        .from(notificationDeliveries)
        .where(eq(notificationDeliveries.event, 'proposal.waiting'));
      expect(email?.n).toBeGreaterThanOrEqual(proposals * 2);
      const [left] = await t.db.select({ n: count() }).from(outbox).where(eq(outbox.topic, 'proposal.created'));
      expect(left?.n).toBeGreaterThanOrEqual(proposals);
      // outbox claim, channels, tenant settings, proposals + members + decisions, agent keys, deliveries, outbox update
      expect(statements).toBeLessThanOrEqual(9);
    },
  );
});
