import type { ExecutionsChanged } from '@/lib/api/responses/admin';
import { resumeExecutions } from '@/lib/commands/executions-pause';
import { executionsResumeRequest } from '@/lib/commands/executions-requests';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import type { EmptyRequest } from '@/lib/input/request-body';

export const dynamic = 'force-dynamic';

/**
 * Ends the emergency stop (audited): pending deadlines move on by the time paused, waiting commands go out. Resuming
 * twice changes nothing.
 */
export const POST = adminMutation<EmptyRequest>(executionsResumeRequest, async ({ db, admin }) => {
  const result = await resumeExecutions(db, admin.tenantId, { type: 'user', id: admin.operator.userId });
  if (!result) throw notFound('tenant');
  return Response.json({ changed: result.changed, executions: result.state } satisfies ExecutionsChanged);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
