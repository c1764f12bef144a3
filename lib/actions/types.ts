import type { z } from 'zod';

export type ContractStatus = 'current' | 'supported' | 'shadow' | 'retired';

export type ContractVersion = {
  version: number;
  status: ContractStatus;
  /** Closed at every depth; defaults applied here become part of the normalized payload. */
  args: z.ZodType<Record<string, unknown>>;
};

export type RoutingRule = {
  id: string;
  description: string;
  /** Null matches every proposal of the action. */
  when: null | { field: string; above: number };
  outcome: 'auto_approve' | 'needs_approval' | 'deny';
  approvals: number;
  role: 'approver' | 'admin';
};

/** One action: everything the generic pipeline, executor and UI need to know about it. */
export type ActionModule = {
  name: string;
  /** The executor family that runs it (`inventory`, `payments`). */
  scope: string;
  title: string;
  contracts: ContractVersion[];
  /** A one-line sentence naming the effect, shown first everywhere. */
  summarize(args: Record<string, unknown>): string;
  /** The label of the approve button: it names the effect, never just "Approve". */
  approveLabel(args: Record<string, unknown>): string;
  defaultRules: RoutingRule[];
  defaultExpiryHours: number;
};
