import { otherMethods } from '@/lib/http/methods';
import { accountMutation } from '@/lib/http/operator-route';
import { relyingParty } from '@/lib/http/relying-party';
import { registrationOptions, requireHostName } from '@/lib/passkeys/registration';
import { passkeyOptionsRequest } from '@/lib/passkeys/requests';

export const dynamic = 'force-dynamic';

/**
 * The options the browser creates a passkey with (user verification required); the challenge works once, for 5 minutes.
 */
export const POST = accountMutation(passkeyOptionsRequest, async ({ db, request, operator }) => {
  const options = await registrationOptions(db, operator.userId, requireHostName(relyingParty(request)));
  return Response.json(options, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
