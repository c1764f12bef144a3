import type { NotificationsOverview } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminRoute } from '@/lib/http/operator-route';
import { listChannels, notificationSettingsOf, recentDeliveries } from '@/lib/notifications/channels';

export const dynamic = 'force-dynamic';

/** Settings → Notifications: the tenant's settings, its channels (no secrets) and its last 50 deliveries. */
export const GET = adminRoute(async ({ db, admin }) => {
  const [settings, channels, deliveries] = await Promise.all([
    notificationSettingsOf(db, admin.tenantId),
    listChannels(db, admin.tenantId),
    recentDeliveries(db, admin.tenantId),
  ]);
  return Response.json({ settings, channels, deliveries } satisfies NotificationsOverview);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
