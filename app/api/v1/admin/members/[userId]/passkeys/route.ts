import { and, eq } from 'drizzle-orm';
import { memberships } from '@/db/schema';
import { notFound } from '@/lib/errors/domain-error';
import { listPasskeys } from '@/lib/passkeys/registration';
import { adminRoute } from '@/lib/http/operator-route';
import { otherMethods } from '@/lib/http/methods';

export const dynamic = 'force-dynamic';

/** A member's passkeys (names and dates, never key material), for an admin who removes a lost one. */
export const GET = adminRoute<{ userId: string }>(async ({ db, admin, params }) => {
  const [member] = await db.select({ userId: memberships.userId }).from(memberships).where(and(eq(memberships.tenantId, admin.tenantId), eq(memberships.userId, params.userId)));
  if (!member) throw notFound('member');
  return Response.json({ passkeys: await listPasskeys(db, member.userId) }, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
