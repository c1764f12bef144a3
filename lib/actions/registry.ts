import { holdStock } from './hold_stock';
import { issueRefund } from './issue_refund';
import type { ActionModule, ContractVersion } from './types';

/** Every action Countersign knows. Adding an action is adding its folder and one line here. */
const ACTIONS: readonly ActionModule[] = [holdStock, issueRefund];

const byName = new Map(ACTIONS.map((action) => [action.name, action]));

export function allActions(): readonly ActionModule[] {
  return ACTIONS;
}

export function findAction(name: string): ActionModule | undefined {
  return byName.get(name);
}

export function findContract(action: ActionModule, version: number): ContractVersion | undefined {
  return action.contracts.find((contract) => contract.version === version);
}

export function acceptedVersions(action: ActionModule): number[] {
  return action.contracts
    .filter((contract) => contract.status === 'current' || contract.status === 'supported')
    .map((contract) => contract.version);
}
