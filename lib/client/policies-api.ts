import type { PolicyEntry, PolicyPreview, PolicyPreviewRequest, PolicySaveResult, PolicyView } from '@/lib/policy/requests';
import { call, sendJson, type ApiResult } from './operator-api';

/**
 * The dashboard's client for the routing policy admin API (`/api/v1/admin/policies`), through the
 * same `call` as every operator request: refusals come back as values with the server's code,
 * words and field issues. Client-safe: types only from the server side.
 */

const BASE = '/api/v1/admin/policies';

export function fetchPolicies(): Promise<ApiResult<{ policies: PolicyView[] }>> {
  return call(BASE, { headers: { accept: 'application/json' } }, 'The routing policies could not be loaded');
}

/** Publishes a new version of each changed entry; 409 `stale_policy` when one was edited from an old version. */
export function savePolicies(entries: PolicyEntry[]): Promise<ApiResult<PolicySaveResult>> {
  return call(BASE, sendJson({ policies: entries }, 'PUT'), 'The policy was not saved');
}

/** What a draft would do with a sample proposal; writes nothing. */
export function previewPolicy(request: PolicyPreviewRequest): Promise<ApiResult<PolicyPreview>> {
  return call(`${BASE}/preview`, sendJson(request), 'The preview could not be computed');
}
