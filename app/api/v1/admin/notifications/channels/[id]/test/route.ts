import type { DeliveryAnswer } from '@/lib/api/responses/admin';
import { env } from '@/lib/env';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import type { EmptyRequest } from '@/lib/input/request-body';
import { executorBaseUrl, mailSettings } from '@/lib/jobs/worker';
import { deliveryOf } from '@/lib/notifications/channels';
import { sendTestDelivery } from '@/lib/notifications/deliver';
import { targetPolicy } from '@/lib/notifications/outbound';
import { channelTestRequest } from '@/lib/notifications/requests';

export const dynamic = 'force-dynamic';

/**
 * "Send a test": a `channel.test` delivery attempted now; answers with its outcome (a failure is retried by the
 * worker).
 */
export const POST = adminMutation<EmptyRequest, { id: string }>(channelTestRequest, async ({ db, admin, params }) => {
  const settings = env();
  const sent = await sendTestDelivery(db, admin.tenantId, params.id, {
    mail: mailSettings(settings),
    targets: targetPolicy(settings),
    baseUrl: executorBaseUrl(settings),
  });
  const delivery = sent && (await deliveryOf(db, admin.tenantId, sent.id));
  if (!delivery) throw notFound('channel');
  return Response.json({ delivery } satisfies DeliveryAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
