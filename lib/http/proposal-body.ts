import type { Database } from '@/db';
import type { AgentPrincipal } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';
import type { IntakeBody } from '@/lib/intake/intake';
import { recordRejection } from '@/lib/intake/record-rejection';
import { readJsonBody } from './body';

/**
 * An agent's proposal body through the one JSON reader. A body that cannot be read never reaches
 * the gates, but it is an attempt too: it is recorded as rejected, then refused.
 */
export async function readProposalBody(
  db: Database,
  agent: AgentPrincipal,
  request: Request,
  startedAt: number,
): Promise<IntakeBody> {
  try {
    return await readJsonBody(request);
  } catch (error) {
    if (error instanceof Refusal) await recordRejection(db, { agent, body: undefined, error, startedAt });
    throw error;
  }
}
