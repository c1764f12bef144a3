import type { ActionModule } from '../types';
import { holdStockArgsV1 } from './contract';

export const holdStock: ActionModule = {
  name: 'hold_stock',
  scope: 'inventory',
  title: 'Hold stock',
  contracts: [{ version: 1, status: 'current', args: holdStockArgsV1 }],
  summarize: (args) => `Hold ${String(args.quantity)} × ${String(args.sku)}`,
  approveLabel: (args) => `Approve hold of ${String(args.quantity)} × ${String(args.sku)}`,
  defaultRules: [
    {
      id: 'holds-one-approver',
      description: 'Every stock hold needs one approver',
      when: null,
      outcome: 'needs_approval',
      approvals: 1,
      role: 'approver',
    },
  ],
  defaultExpiryHours: 24,
};
