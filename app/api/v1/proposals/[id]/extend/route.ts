import { z } from 'zod';
import { extendExpiry } from '@/lib/decisions/extend';
import { ApiError } from '@/lib/http/errors';
import { operatorMutation } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { readJsonBody } from '@/lib/intake/body';
import { toFieldIssues } from '@/lib/intake/issues';
import { decisionsFor } from '@/lib/proposals/queries';
import { proposalDetail } from '@/lib/proposals/view';

export const dynamic = 'force-dynamic';

/** Extending takes nothing: no body, or an empty JSON object. */
const extendRequestSchema = z.strictObject({});

export const POST = operatorMutation(async ({ id, db, operator, request }) => {
  const hasBody = request.body !== null && request.headers.get('content-length') !== '0';
  if (hasBody) {
    const body = await readJsonBody(request);
    const parsed = extendRequestSchema.safeParse(body.value);
    if (!parsed.success) {
      throw new ApiError(422, 'schema', 'invalid_extension', 'An extension takes no fields; send {} or no body.', {
        issues: toFieldIssues(parsed.error, body.value, extendRequestSchema),
      });
    }
  }
  const proposal = await extendExpiry(db, { userId: operator.userId, proposalId: id });
  return Response.json(proposalDetail(proposal, await decisionsFor(db, proposal.tenantId, proposal.id), publicOrigin(request), 'operator'));
});
