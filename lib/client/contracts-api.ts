import type { ContractStatusRequest } from '@/lib/contracts/requests';
import type { RolloutAction } from '@/lib/contracts/senders';
import { type ApiResult, call, sendJson } from './operator-api';

/** The dashboard's client for the contract rollout admin API (`/api/v1/admin/contracts`). */
export function postContractStatus(
  action: string,
  version: number,
  request: ContractStatusRequest,
): Promise<ApiResult<{ changed: boolean; action: RolloutAction }>> {
  return call(
    `/api/v1/admin/contracts/${encodeURIComponent(action)}/${version}`,
    sendJson(request),
    'The contract version was not changed',
  );
}
