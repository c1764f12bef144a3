import { consumeRateLimit } from '@/lib/agents/rate-limit';
import { proposalSummary } from '@/lib/api/responses/proposal-json';
import type { ProposalCreated } from '@/lib/api/responses/proposals';
import { getDb } from '@/lib/database';
import { env } from '@/lib/env';
import { otherMethods } from '@/lib/http/methods';
import { apiRoute } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { requireAgent } from '@/lib/http/principal';
import { readProposalBody } from '@/lib/http/proposal-body';
import { submitProposal } from '@/lib/intake/intake';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

export const POST = apiRoute(async (request) => {
  const startedAt = performance.now();
  const db = await getDb();
  const agent = await requireAgent(db, request);
  await consumeRateLimit(db, `agent:${agent.keyId}`, env().AGENT_RATE_LIMIT_PER_MINUTE);
  const outcome = await submitProposal(
    db,
    agent,
    await readProposalBody(db, agent, request, startedAt),
    systemsClient(),
  );
  const { proposal } = outcome;
  return Response.json(
    { proposal: proposalSummary(proposal, publicOrigin(request)) } satisfies ProposalCreated,
    // A supported (deprecated) version tells its users so, and when it ends (RFC 9745, RFC 8594).
    { status: outcome.created ? 201 : 200, headers: outcome.headers },
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
