import { getDb } from '@/lib/database';
import type { ProposalCreated } from '@/lib/api/responses/proposals';
import { consumeRateLimit } from '@/lib/agents/rate-limit';
import { env } from '@/lib/env';
import { ApiError, errorResponse } from '@/lib/http/errors';
import { publicOrigin } from '@/lib/http/origin';
import { requireAgent } from '@/lib/http/principal';
import { readJsonBody } from '@/lib/http/body';
import { submitProposal } from '@/lib/intake/intake';
import { recordRejection } from '@/lib/intake/record-rejection';
import { proposalSummary } from '@/lib/api/responses/proposal-json';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

export async function POST(request: Request) {
  const startedAt = performance.now();
  const db = await getDb();
  let agent;
  try {
    agent = await requireAgent(db, request);
    await consumeRateLimit(db, `agent:${agent.keyId}`, env().AGENT_RATE_LIMIT_PER_MINUTE);
    let body;
    try {
      body = await readJsonBody(request);
    } catch (error) {
      // Malformed bodies never reach the gates, but they are attempts too.
      if (error instanceof ApiError) await recordRejection(db, { agent, body: undefined, error, startedAt });
      throw error;
    }
    const outcome = await submitProposal(db, agent, body, systemsClient());
    const { proposal } = outcome;
    return Response.json(
      { proposal: proposalSummary(proposal, publicOrigin(request)) } satisfies ProposalCreated,
      // A supported (deprecated) version tells its users so, and when it ends (RFC 9745, RFC 8594).
      { status: outcome.created ? 201 : 200, headers: outcome.headers },
    );
  } catch (error) {
    return errorResponse(error);
  }
}
