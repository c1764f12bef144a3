import { otherMethods } from '@/lib/http/methods';
import { accountMutation, viewerRead } from '@/lib/http/operator-route';
import { passkeyHostProblem, relyingParty } from '@/lib/http/relying-party';
import { listPasskeys, registerPasskey, requireHostName } from '@/lib/passkeys/registration';
import { passkeyRegisterRequest } from '@/lib/passkeys/requests';

export const dynamic = 'force-dynamic';

/**
 * Settings → Security: the signed-in person's passkeys (never key material), and why passkeys cannot be used at this
 * address, if so.
 */
export const GET = viewerRead(async ({ db, request, viewer }) => {
  const problem = passkeyHostProblem(request);
  return Response.json(
    { passkeys: await listPasskeys(db, viewer.operator.userId), hostProblem: problem ?? null },
    { headers: { 'cache-control': 'no-store' } },
  );
});

/**
 * Adds a passkey from the browser's registration response to options from `POST …/options`. Audited
 * `passkey.registered`.
 */
export const POST = accountMutation(passkeyRegisterRequest, async ({ db, request, operator, body }) => {
  const passkey = await registerPasskey(db, operator.userId, requireHostName(relyingParty(request)), body);
  return Response.json({ passkey }, { status: 201 });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
