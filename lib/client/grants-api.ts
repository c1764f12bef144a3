import type { GrantView } from '@/lib/grants/list';
import type { GrantRequest, RevokeRequest } from '@/lib/grants/requests';
import { type ApiResult, call, sendJson } from './operator-api';

/**
 * The dashboard's client for standing grants (docs/grants.md), through the same `call` as every
 * operator request. Client-safe: types only.
 */

/** Make a grant from a proposal the person just approved (201 with the grant). */
export function postGrant(request: GrantRequest): Promise<ApiResult<GrantView>> {
  return call('/api/v1/grants', sendJson(request), 'The grant was not made');
}

/** End a grant at once; the granter or an admin. */
export function postGrantRevocation(grantId: string, request: RevokeRequest): Promise<ApiResult<GrantView>> {
  return call(`/api/v1/grants/${encodeURIComponent(grantId)}/revoke`, sendJson(request), 'The grant was not revoked');
}
