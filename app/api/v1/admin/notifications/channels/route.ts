import { adminMutation } from '@/lib/http/operator-route';
import type { ChannelCreated } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/http/errors';
import { createChannel } from '@/lib/notifications/channels';
import { channelCreateRequest } from '@/lib/notifications/requests';

export const dynamic = 'force-dynamic';

/** Adds a channel; a webhook's signing secret is in this answer and never again (`null` for slack and email). */
export const POST = adminMutation(channelCreateRequest, async ({ db, admin, body }) => {
  const created = await createChannel(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  if (!created) throw notFound('tenant');
  return Response.json(created satisfies ChannelCreated, { status: 201 });
});
