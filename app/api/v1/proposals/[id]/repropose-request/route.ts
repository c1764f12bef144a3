import type { ReproposalCreated } from '@/lib/api/responses/proposals';
import { requestReproposal } from '@/lib/decisions/repropose';
import { reproposeRequest } from '@/lib/decisions/requests';
import { otherMethods } from '@/lib/http/methods';
import { operatorMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** An approver asks the agent to propose a stale (or changed) proposal again: 201 with what the agent will read. */
export const POST = operatorMutation(reproposeRequest, async ({ id, db, operator, body }) => {
  const reproposal = await requestReproposal(db, { userId: operator.userId, proposalId: id, request: body });
  return Response.json({ reproposal } satisfies ReproposalCreated, { status: 201 });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
