import { getDb } from '@/db';
import { ApiError, errorResponse } from '@/lib/http/errors';
import { publicOrigin } from '@/lib/http/origin';
import { requireAgent } from '@/lib/http/principal';
import { readJsonBody } from '@/lib/intake/body';
import { submitProposal } from '@/lib/intake/intake';
import { recordRejection } from '@/lib/intake/record-rejection';
import { proposalSummary } from '@/lib/proposals/view';

export const dynamic = 'force-dynamic';

export async function POST(request: Request) {
  const startedAt = performance.now();
  const db = await getDb();
  let agent;
  let body: { text: string; value: unknown } | undefined;
  try {
    agent = await requireAgent(db, request);
    body = await readJsonBody(request);
    const outcome = await submitProposal(db, agent, body);
    return Response.json(
      { proposal: proposalSummary(outcome.proposal, publicOrigin(request)) },
      { status: outcome.created ? 201 : 200 },
    );
  } catch (error) {
    if (error instanceof ApiError && error.status !== 401) {
      await recordRejection(db, agent, body?.value, error, startedAt).catch(() => undefined);
    }
    return errorResponse(error);
  }
}
