import { sendInvitationCode } from '@/lib/admin/invitations';
import { invitationCodeRequest } from '@/lib/admin/requests';
import type { EmailCodeSent } from '@/lib/api/responses/admin';
import { clientAddress } from '@/lib/auth/client-address';
import { getDb } from '@/lib/database';
import { env } from '@/lib/env';
import { readJsonRequest } from '@/lib/http/body';
import { otherMethods } from '@/lib/http/methods';
import { apiRoute } from '@/lib/http/operator-route';
import { assertSameOrigin } from '@/lib/http/origin';

export const dynamic = 'force-dynamic';

/**
 * The invitation page's "Send code" (app/invite/[token]): public and same-origin, like accepting.
 * The code goes to the address the invitation names, through the operator's SMTP_URL; the token is
 * never logged.
 */
export const POST = apiRoute(async (request) => {
  assertSameOrigin(request);
  const body = await readJsonRequest(request, invitationCodeRequest);
  const settings = env();
  const sent = await sendInvitationCode(await getDb(), body.token, clientAddress(request.headers), {
    smtpUrl: settings.SMTP_URL,
    from: settings.SMTP_FROM,
  });
  return Response.json({ sentTo: sent.email } satisfies EmailCodeSent, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
