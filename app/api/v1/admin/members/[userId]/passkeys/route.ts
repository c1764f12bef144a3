import { otherMethods } from '@/lib/http/methods';
import { adminRoute } from '@/lib/http/operator-route';
import { memberPasskeys } from '@/lib/passkeys/removal';

export const dynamic = 'force-dynamic';

/** A member's passkeys (names and dates, never key material), for an admin who removes a lost one. */
export const GET = adminRoute<{ userId: string }>(async ({ db, admin, params }) => {
  return Response.json(
    { passkeys: await memberPasskeys(db, admin.tenantId, params.userId) },
    { headers: { 'cache-control': 'no-store' } },
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
