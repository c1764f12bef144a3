import { recheckRequest } from '@/lib/decisions/requests';
import { freshFacts } from '@/lib/decisions/fresh-facts';
import { operatorMutation } from '@/lib/http/operator-route';
import { otherMethods } from '@/lib/http/methods';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

/** A member looks at a proposal: its facts read again (bounded, cached a few seconds), at proposal beside now. */
export const POST = operatorMutation(recheckRequest, async ({ id, db, operator }) => {
  return Response.json(await freshFacts(db, systemsClient(), operator, id));
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
