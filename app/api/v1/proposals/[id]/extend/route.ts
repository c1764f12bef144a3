import { proposalDetail } from '@/lib/api/responses/proposal-json';
import { extendExpiry } from '@/lib/decisions/extend';
import { extendRequest } from '@/lib/decisions/requests';
import { otherMethods } from '@/lib/http/methods';
import { operatorMutation } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { decisionsFor } from '@/lib/proposals/decision-rows';

export const dynamic = 'force-dynamic';

export const POST = operatorMutation(extendRequest, async ({ id, db, operator, request }) => {
  const proposal = await extendExpiry(db, { userId: operator.userId, proposalId: id });
  return Response.json(
    proposalDetail(proposal, await decisionsFor(db, proposal.tenantId, proposal.id), publicOrigin(request), 'operator'),
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
