import { decide, decisionRequestSchema } from '@/lib/decisions/decide';
import { ApiError } from '@/lib/http/errors';
import { operatorMutation } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { readJsonBody } from '@/lib/intake/body';
import { toFieldIssues } from '@/lib/intake/issues';
import { decisionsFor } from '@/lib/proposals/queries';
import { proposalDetail } from '@/lib/proposals/view';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

export const POST = operatorMutation(async ({ id, db, operator, request }) => {
  const body = await readJsonBody(request);
  const parsed = decisionRequestSchema.safeParse(body.value);
  if (!parsed.success) {
    throw new ApiError(422, 'schema', 'invalid_decision', 'The decision is not valid.', {
      issues: toFieldIssues(parsed.error, body.value, decisionRequestSchema),
    });
  }
  const proposal = await decide(db, systemsClient(), { userId: operator.userId, proposalId: id, request: parsed.data });
  return Response.json(proposalDetail(proposal, await decisionsFor(db, proposal.tenantId, proposal.id), publicOrigin(request), 'operator'));
});
