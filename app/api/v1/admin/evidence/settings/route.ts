import { setEvidenceResolver, tenantEvidenceResolver } from '@/lib/definitions/evidence-resolver';
import { type EvidenceSettings, evidenceSettingsRequest } from '@/lib/definitions/requests';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation, adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** The tenant's evidence resolver (docs/actions.md, "Evidence"). Admins only. */
export const GET = adminRoute(async ({ db, admin }) =>
  Response.json({ resolver: await tenantEvidenceResolver(db, admin.tenantId) } satisfies EvidenceSettings),
);

/**
 * Sets or clears the tenant's evidence resolver, audited as `tenant.settings_changed`: new
 * proposals' evidence refs are read there. 422 `invalid_evidence_settings` for a URL that is not
 * http(s) or at an origin the operator does not allow (ACTION_ALLOWED_ORIGINS).
 */
export const PUT = adminMutation(evidenceSettingsRequest, async ({ db, admin, body }) => {
  const by = { type: 'user' as const, id: admin.operator.userId };
  const result = await setEvidenceResolver(db, admin.tenantId, body.resolver, by);
  if (!result) throw notFound('tenant');
  return Response.json({ resolver: body.resolver, changed: result.changed } satisfies EvidenceSettings);
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PATCH, DELETE, OPTIONS } = otherMethods({ GET, PUT });
