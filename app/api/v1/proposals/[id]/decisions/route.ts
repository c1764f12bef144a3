import { getDb } from '@/db';
import { decide, decisionRequestSchema } from '@/lib/decisions/decide';
import { ApiError, errorResponse } from '@/lib/http/errors';
import { assertSameOrigin, publicOrigin } from '@/lib/http/origin';
import { requireOperator } from '@/lib/http/principal';
import { readJsonBody } from '@/lib/intake/body';
import { toFieldIssues } from '@/lib/intake/issues';
import { decisionsFor } from '@/lib/proposals/queries';
import { proposalDetail } from '@/lib/proposals/view';

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    const db = await getDb();
    const operator = await requireOperator(db);
    assertSameOrigin(request);
    const body = await readJsonBody(request);
    const parsed = decisionRequestSchema.safeParse(body.value);
    if (!parsed.success) {
      throw new ApiError(422, 'schema', 'invalid_decision', 'The decision is not valid.', {
        issues: toFieldIssues(parsed.error, body.value, decisionRequestSchema),
      });
    }
    const proposal = await decide(db, { userId: operator.userId, proposalId: id, request: parsed.data });
    const decisions = await decisionsFor(db, proposal.tenantId, proposal.id);
    return Response.json(proposalDetail(proposal, decisions, publicOrigin(request), 'operator'));
  } catch (error) {
    return errorResponse(error);
  }
}
