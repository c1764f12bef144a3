import { type EmailCodeCheck, emailCodeCheckRequest } from '@/lib/admin/requests';
import type { EmailVerified } from '@/lib/api/responses/admin';
import { verifyEmailCode } from '@/lib/auth/email-codes';
import { otherMethods } from '@/lib/http/methods';
import { accountMutation } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Checks the emailed code; the right one proves the signed-in person's address (and takes an account
 * an invitation link made over for its owner: its credentials and sessions end, this one too).
 */
export const POST = accountMutation<EmailCodeCheck>(emailCodeCheckRequest, async ({ db, operator, body }) => {
  const verified = await verifyEmailCode(db, operator.userId, body.code, body.password);
  return Response.json(
    { verifiedAt: verified.verifiedAt, credentialsCleared: verified.credentialsCleared } satisfies EmailVerified,
    { headers: { 'cache-control': 'no-store' } },
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
