import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { notificationDeliveries } from '@/db/schema';
import { setupTestDatabase } from '@/test/db';
import { seededWorld } from '@/test/world';
import { createChannel, deliveryOf, listChannels, recentDeliveries, retryDelivery, updateChannel } from './channels';
import { sendTestDelivery } from './deliver';

const ADMIN = { type: 'user' as const, id: 'test-admin' };
const t = setupTestDatabase();
seededWorld(t);

const admin = { type: 'user' as const, id: 'usr_test_admin' };
// Nothing listens on port 9 (discard), allowed here: the attempt fails at once as unreachable.
const targets = { allowedPrivateOrigins: ['http://127.0.0.1:9'] };
const options = {
  mail: { from: 'Countersign <countersign@localhost>' },
  targets,
  baseUrl: 'http://127.0.0.1:3000',
  timeoutMs: 2_000,
};

/** What the admin API answers from: another tenant's channel or delivery is the same as none. */
describe('notification channels stay inside their tenant', () => {
  it('another tenant cannot change, test, read or retry a channel or its deliveries', async () => {
    const created = await createChannel(
      t.db,
      'globex',
      admin,
      { kind: 'webhook', target: 'http://127.0.0.1:9/hook' },
      { targets },
    );
    const channelId = created!.channel.id;
    const delivery = await sendTestDelivery(t.db, 'globex', channelId, options);
    expect(delivery).toMatchObject({ status: 'pending', lastError: 'unreachable' });
    await t.db
      .update(notificationDeliveries)
      .set({ status: 'dead' })
      .where(eq(notificationDeliveries.id, delivery!.id));

    expect(await updateChannel(t.db, 'acme', channelId, admin, { enabled: false })).toBeUndefined();
    expect(await sendTestDelivery(t.db, 'acme', channelId, options)).toBeUndefined();
    expect(await deliveryOf(t.db, 'acme', delivery!.id)).toBeUndefined();
    expect(await retryDelivery(t.db, 'acme', delivery!.id, ADMIN)).toBeUndefined();
    expect(await listChannels(t.db, 'acme')).not.toContainEqual(expect.objectContaining({ id: channelId }));
    expect(await recentDeliveries(t.db, 'acme')).not.toContainEqual(expect.objectContaining({ id: delivery!.id }));

    // In its own tenant the dead delivery is retried once; then it is no longer dead.
    expect(await deliveryOf(t.db, 'globex', delivery!.id)).toMatchObject({ status: 'dead', channelId });
    expect(await retryDelivery(t.db, 'globex', delivery!.id, ADMIN)).toEqual({ id: delivery!.id });
    expect(await retryDelivery(t.db, 'globex', delivery!.id, ADMIN)).toBeUndefined();
    expect(await deliveryOf(t.db, 'globex', delivery!.id)).toMatchObject({ status: 'pending', attempts: 0 });
    expect((await listChannels(t.db, 'globex')).find((c) => c.id === channelId)).toMatchObject({
      enabled: true,
      hasSecret: true,
    });
  });
});
