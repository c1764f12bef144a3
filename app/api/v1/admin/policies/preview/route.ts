import type { PolicyPreviewAnswer } from '@/lib/api/responses/admin';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation } from '@/lib/http/operator-route';
import { previewPolicy } from '@/lib/policy/preview';
import { policyJsonBody } from '@/lib/policy/requests';
import { systemsClient } from '@/lib/systems/client';

export const dynamic = 'force-dynamic';

/** What a draft policy would do with a sample proposal, by the router itself; writes nothing. Admins only. */
export const POST = adminMutation(policyJsonBody, async ({ db, admin, body }) =>
  Response.json((await previewPolicy(db, systemsClient(), admin.tenantId, body)) satisfies PolicyPreviewAnswer),
);

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { GET, HEAD, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ POST });
