import { definitionVersions } from '@/lib/definitions/api';
import { otherMethods } from '@/lib/http/methods';
import { adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Every version of one of the tenant's action definitions, newest first; 404 for a name it never
 * published. Admins only.
 */
export const GET = adminRoute<{ name: string }>(async ({ db, admin, params }) =>
  Response.json(await definitionVersions(db, admin.tenantId, params.name)),
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
