import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { decide } from '@/lib/decisions/decide';
import { decisionRequest } from '@/lib/decisions/requests';
import { otherMethods } from '@/lib/http/methods';
import { operatorMutation } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { relyingParty } from '@/lib/http/relying-party';
import { decisionsFor } from '@/lib/proposals/decision-rows';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

export const POST = operatorMutation(decisionRequest, async ({ id, db, operator, request, body }) => {
  const proposal = await decide(db, systemsClient(), {
    userId: operator.userId,
    proposalId: id,
    request: body,
    relyingParty: relyingParty(request),
  });
  return Response.json(
    proposalDetail(proposal, await decisionsFor(db, proposal.tenantId, proposal.id), publicOrigin(request), 'operator'),
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
