import type { ExecutionsStateAnswer } from '@/lib/api/responses/admin';
import { executionsState } from '@/lib/commands/executions-pause';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** Whether the tenant's executions are paused, by whom, since when and why. */
export const GET = adminRoute(async ({ db, admin }) => {
  const executions = await executionsState(db, admin.tenantId);
  if (!executions) throw notFound('tenant');
  return Response.json({ executions } satisfies ExecutionsStateAnswer);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
