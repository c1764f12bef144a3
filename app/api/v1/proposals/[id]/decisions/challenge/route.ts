import { decisionChallenge } from '@/lib/decisions/passkey-signature';
import { otherMethods } from '@/lib/http/methods';
import { operatorMutation } from '@/lib/http/operator-route';
import { relyingParty } from '@/lib/http/relying-party';
import { decisionChallengeRequest } from '@/lib/passkeys/requests';

export const dynamic = 'force-dynamic';

/**
 * The statement of the signed-in person's decision and the passkey options whose challenge is its hash: 2 minutes,
 * once.
 */
export const POST = operatorMutation(decisionChallengeRequest, async ({ id, db, operator, request, body }) => {
  const challenge = await decisionChallenge(db, {
    userId: operator.userId,
    proposalId: id,
    decision: body.decision,
    rp: relyingParty(request),
  });
  return Response.json(challenge, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
