import type { DeliveryAnswer } from '@/lib/api/responses/admin';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import type { EmptyRequest } from '@/lib/input/request-body';
import { deliveryOf, retryDelivery } from '@/lib/notifications/channels';
import { deliveryRetryRequest } from '@/lib/notifications/requests';

export const dynamic = 'force-dynamic';

/** Sends a dead delivery again (pending, due now, same id); one that is not dead is a 409 `not_dead`. */
export const POST = adminMutation<EmptyRequest, { id: string }>(deliveryRetryRequest, async ({ db, admin, params }) => {
  const retried = await retryDelivery(db, admin.tenantId, params.id, { type: 'user', id: admin.operator.userId });
  const delivery = await deliveryOf(db, admin.tenantId, params.id);
  if (!delivery) throw notFound('delivery');
  if (!retried) throw new Refusal('not_dead', `Only a dead delivery can be retried; this one is ${delivery.status}.`);
  return Response.json({ delivery } satisfies DeliveryAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
