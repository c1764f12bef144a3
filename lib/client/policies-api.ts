import type { PolicyPlan } from '@/lib/policy/plan';
import type {
  PolicyEntry,
  PolicyPreview,
  PolicyPreviewRequest,
  PolicySaveResult,
  PolicyView,
} from '@/lib/policy/requests';
import { type ApiResult, call, sendJson } from './operator-api';

/**
 * The dashboard's client for the routing policy admin API (`/api/v1/admin/policies`), through the
 * same `call` as every operator request: refusals come back as values with the server's code,
 * words and field issues. Client-safe: types only from the server side.
 */

const BASE = '/api/v1/admin/policies';

export function fetchPolicies(): Promise<ApiResult<{ policies: PolicyView[] }>> {
  return call(BASE, { headers: { accept: 'application/json' } }, 'The routing policies could not be loaded');
}

/**
 * Publishes a new version of each changed entry with the change note; 409 `stale_policy` when one was edited from an
 * old version.
 */
export function savePolicies(entries: PolicyEntry[], note: string): Promise<ApiResult<PolicySaveResult>> {
  return call(BASE, sendJson({ policies: entries, note }, 'PUT'), 'The policy was not saved');
}

/** The change in words and the backtest of the last `days` days; writes nothing. */
export function planPolicies(entries: PolicyEntry[], days: string): Promise<ApiResult<PolicyPlan>> {
  return call(
    `${BASE}/plan?days=${encodeURIComponent(days)}`,
    sendJson({ policies: entries }),
    'The plan could not be computed',
  );
}

/** What a draft would do with a sample proposal; writes nothing. */
export function previewPolicy(request: PolicyPreviewRequest): Promise<ApiResult<PolicyPreview>> {
  return call(`${BASE}/preview`, sendJson(request), 'The preview could not be computed');
}
