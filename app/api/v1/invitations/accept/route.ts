import { acceptInvitation } from '@/lib/admin/invitations';
import { asMemberApi } from '@/lib/admin/members';
import { acceptRequest } from '@/lib/admin/requests';
import type { InvitationAccepted } from '@/lib/api/responses/admin';
import { auth } from '@/lib/auth';
import { clientAddress } from '@/lib/auth/client-address';
import { getDb } from '@/lib/database';
import { oidcEnabled } from '@/lib/env';
import { Refusal } from '@/lib/errors/refusal';
import { readJsonRequest } from '@/lib/http/body';
import { otherMethods } from '@/lib/http/methods';
import { apiRoute } from '@/lib/http/operator-route';
import { assertSameOrigin } from '@/lib/http/origin';

export const dynamic = 'force-dynamic';

/**
 * Accepts an invitation (app/invite/[token]): public, so that a new person can make an account; an
 * existing account joins only with its own session (lib/admin/invitations.ts). Same-origin only,
 * the body through the one capped reader; the token and the password are never logged.
 */
export const POST = apiRoute(async (request) => {
  assertSameOrigin(request);
  const body = await readJsonRequest(request, acceptRequest);
  if (body.sso && !oidcEnabled())
    throw new Refusal('sso_unavailable', 'Single sign-on is not configured here; choose a password.');
  const userId = (await auth())?.operatorId || undefined;
  const acceptor = { userId, address: clientAddress(request.headers) };
  const accepted = await asMemberApi(async () => acceptInvitation(await getDb(), body, acceptor));
  return Response.json(
    {
      email: accepted.email,
      tenantName: accepted.tenantName,
      role: accepted.role,
      signIn: accepted.signIn,
    } satisfies InvitationAccepted,
    { headers: { 'cache-control': 'no-store' } },
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
