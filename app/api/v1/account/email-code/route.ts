import { emailCodeRequest } from '@/lib/admin/requests';
import type { EmailCodeSent } from '@/lib/api/responses/admin';
import { sendEmailCode } from '@/lib/auth/email-codes';
import { env } from '@/lib/env';
import { otherMethods } from '@/lib/http/methods';
import { accountMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** Emails the signed-in person a code that proves their address (the operator's SMTP_URL). */
export const POST = accountMutation(emailCodeRequest, async ({ db, operator }) => {
  const settings = env();
  const sent = await sendEmailCode(db, operator.userId, { smtpUrl: settings.SMTP_URL, from: settings.SMTP_FROM });
  return Response.json({ sentTo: sent.email } satisfies EmailCodeSent, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
