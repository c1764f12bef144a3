import type { ExecutionsChanged } from '@/lib/api/responses/admin';
import { pauseExecutions } from '@/lib/commands/executions-pause';
import { executionsPauseRequest } from '@/lib/commands/executions-requests';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * The tenant's emergency stop (audited): approved commands wait, no expiry is counted. Pausing twice changes nothing.
 */
export const POST = adminMutation(executionsPauseRequest, async ({ db, admin, body }) => {
  const result = await pauseExecutions(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  if (!result) throw notFound('tenant');
  return Response.json({ changed: result.changed, executions: result.state } satisfies ExecutionsChanged);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
