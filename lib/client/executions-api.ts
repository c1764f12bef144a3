import type { ExecutionsChanged } from '@/lib/api/responses/admin';
import { type ApiResult, call, sendJson } from './operator-api';

/** The dashboard's client for the emergency stop (`/api/v1/admin/executions/…`), through the one `call`. */

const BASE = '/api/v1/admin/executions';

type Answer = ApiResult<Pick<ExecutionsChanged, 'changed'>>;

export function pauseExecutions(reason: string): Promise<Answer> {
  return call(`${BASE}/pause`, sendJson(reason ? { reason } : {}), 'Executions were not paused');
}

export function resumeExecutions(): Promise<Answer> {
  return call(`${BASE}/resume`, sendJson({}), 'Executions were not resumed');
}
