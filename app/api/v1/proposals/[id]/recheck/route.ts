import { freshFacts } from '@/lib/decisions/fresh-facts';
import { recheckRequest } from '@/lib/decisions/requests';
import { otherMethods } from '@/lib/http/methods';
import { operatorMutation } from '@/lib/http/operator-route';
import { recordView } from '@/lib/oversight/views';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

/**
 * A member looks at a proposal (the queue's preview, its approve dialog): its facts read again
 * (bounded, cached a few seconds), at proposal beside now. Served to them, it is their first look
 * through the queue (docs/oversight.md).
 */
export const POST = operatorMutation(recheckRequest, async ({ id, db, operator }) => {
  const facts = await freshFacts(db, systemsClient(), operator, id);
  await recordView(db, { userId: operator.userId, proposalId: id, channel: 'queue' });
  return Response.json(facts);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
