import type { ChannelChanged } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { type ChannelPatch, updateChannel } from '@/lib/notifications/channels';
import { channelChangeRequest } from '@/lib/notifications/requests';

export const dynamic = 'force-dynamic';

/** Changes a channel's target or events, or disables / re-enables it. Another tenant's id is a 404. */
export const PATCH = adminMutation<ChannelPatch, { id: string }>(
  channelChangeRequest,
  async ({ db, admin, params, body }) => {
    const updated = await updateChannel(
      db,
      admin.tenantId,
      params.id,
      { type: 'user', id: admin.operator.userId },
      body,
    );
    if (!updated) throw notFound('channel');
    return Response.json(updated satisfies ChannelChanged);
  },
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, POST, PUT, DELETE, OPTIONS } = otherMethods({ PATCH });
