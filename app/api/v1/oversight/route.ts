import type { OversightAnswer } from '@/lib/api/responses/oversight';
import { otherMethods } from '@/lib/http/methods';
import { memberRead } from '@/lib/http/operator-route';
import { oversightDays, oversightFigures } from '@/lib/oversight/figures';

export const dynamic = 'force-dynamic';

/**
 * Members of the tenant in view (viewers, approvers, admins): the oversight figures of the last
 * `days` days (query parameter, 1–90, default 7): per approver, per action and per channel
 * (docs/oversight.md). Writes nothing.
 */
export const GET = memberRead(async ({ db, member, request }) => {
  const days = oversightDays(new URL(request.url).searchParams.get('days'));
  return Response.json(
    (await oversightFigures(
      db,
      { userId: member.operator.userId, tenantId: member.tenantId },
      days,
    )) satisfies OversightAnswer,
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
