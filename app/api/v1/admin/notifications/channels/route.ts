import type { ChannelCreated } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { createChannel } from '@/lib/notifications/channels';
import { channelCreateRequest } from '@/lib/notifications/requests';

export const dynamic = 'force-dynamic';

/** Adds a channel; a webhook's signing secret is in this answer and never again (`null` for slack and email). */
export const POST = adminMutation(channelCreateRequest, async ({ db, admin, body }) => {
  const created = await createChannel(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  if (!created) throw notFound('tenant');
  return Response.json(created satisfies ChannelCreated, { status: 201 });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
