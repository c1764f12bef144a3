import type { QueuePage } from '@/lib/api/responses/reads';
import { invalidQuery, notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { viewerRead } from '@/lib/http/operator-route';
import { parseQueueParams, pendingQueue } from '@/lib/proposals/queue';

export const dynamic = 'force-dynamic';

/**
 * The operator's queue:
 * `?tenant=<id>&group=needs-you|waiting|all&action=&agent=&risk=&sort=expiring|newest|oldest&cursor=<opaque>`; the
 * tenant must be one of theirs (without `tenant`, the one the viewer is looking at in the dashboard), and the groups
 * are as their role there sees them (lib/proposals/queue.ts). Unknown parameters or values are a 400 that says which.
 */
export const GET = viewerRead(async ({ db, request, viewer }) => {
  const parsed = parseQueueParams(new URL(request.url).searchParams);
  if (!parsed.ok) throw invalidQuery(parsed.messages);
  const { tenant, cursor, ...view } = parsed.params;
  const membership =
    tenant === undefined ? viewer.membership : viewer.operator.memberships.find((m) => m.tenantId === tenant);
  if (!membership) throw notFound('tenant');
  return Response.json(
    (await pendingQueue(
      db,
      membership.tenantId,
      { userId: viewer.operator.userId, role: membership.role },
      view,
      cursor,
    )) satisfies QueuePage,
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
