import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { revisionRequest } from '@/lib/decisions/requests';
import { reviseProposal } from '@/lib/decisions/revise';
import { otherMethods } from '@/lib/http/methods';
import { operatorMutation } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { decisionsFor } from '@/lib/proposals/decision-rows';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

/** An approver's edit: `{args, reason}` → a new revision, re-gated, that replaces the proposal. */
export const POST = operatorMutation(revisionRequest, async ({ id, db, operator, request, body }) => {
  const revision = await reviseProposal(db, systemsClient(), {
    userId: operator.userId,
    proposalId: id,
    args: body.args,
    reason: body.reason,
  });
  return Response.json(
    proposalDetail(revision, await decisionsFor(db, revision.tenantId, revision.id), publicOrigin(request), 'operator'),
    { status: 201 },
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
