import { z } from 'zod';
import { ApiError } from '@/lib/http/errors';
import { operatorMutation } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { readJsonBody } from '@/lib/intake/body';
import { decisionsFor } from '@/lib/proposals/queries';
import { reviseProposal } from '@/lib/proposals/revise';
import { proposalDetail } from '@/lib/proposals/view';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

const revisionRequest = z.strictObject({ args: z.record(z.string(), z.unknown()) });

/** An approver's edit: `{args}` → a new revision, re-gated, that replaces the proposal. */
export const POST = operatorMutation(async ({ id, db, operator, request }) => {
  const body = await readJsonBody(request);
  const parsed = revisionRequest.safeParse(body.value);
  if (!parsed.success) throw new ApiError(422, 'schema', 'invalid_revision', 'Send {"args": {…}} with the edited arguments.');
  const revision = await reviseProposal(db, systemsClient(), { userId: operator.userId, proposalId: id, args: parsed.data.args });
  return Response.json(proposalDetail(revision, await decisionsFor(db, revision.tenantId, revision.id), publicOrigin(request), 'operator'), { status: 201 });
});
