import type { Role } from '@/db/schema';
import type { RoutingRule } from '@/lib/actions/types';

/** The demo world of docs/design.md §13: the same in the demo and in the tests. */
export const DEMO_TENANTS = [
  { id: 'acme', name: 'Acme' },
  { id: 'globex', name: 'Globex' },
] as const;

export const DEMO_PEOPLE: { email: string; name: string; tenant: string; role: Role }[] = [
  { email: 'alice@acme.test', name: 'Alice', tenant: 'acme', role: 'approver' },
  { email: 'bob@acme.test', name: 'Bob', tenant: 'acme', role: 'approver' },
  { email: 'carol@acme.test', name: 'Carol', tenant: 'acme', role: 'admin' },
  { email: 'dave@acme.test', name: 'Dave', tenant: 'acme', role: 'viewer' },
  { email: 'erin@globex.test', name: 'Erin', tenant: 'globex', role: 'approver' },
];

export const DEMO_AGENTS: { tenant: string; name: string; actions: string[]; grants: Record<string, string[]> }[] = [
  {
    tenant: 'acme',
    name: 'acme-support-bot',
    actions: ['hold_stock', 'issue_refund'],
    grants: { warehouses: ['north'] },
  },
  { tenant: 'globex', name: 'globex-bot', actions: ['hold_stock', 'issue_refund'], grants: { warehouses: ['north'] } },
];

/**
 * The demo policy per action, at the version that introduced its current rules: seeding adds a
 * version only when the tenant's newest one is older, so an existing demo database is upgraded
 * and a policy an admin saved since is never overwritten.
 */
export const DEMO_POLICIES: { action: string; version: number; rules: RoutingRule[] }[] = [
  {
    action: 'hold_stock',
    version: 1,
    rules: [
      {
        id: 'holds-one-approver',
        description: 'Every stock hold needs one approver',
        when: null,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    ],
  },
  {
    action: 'issue_refund',
    // v2: the bound is on the order's refunds within 24 h, so splitting one never needs fewer approvers.
    version: 2,
    rules: [
      {
        id: 'refunds-over-100',
        description: 'Refunds above 100.00 on one order within 24 h need two approvers',
        when: { field: 'amountMinor', above: 10000, aggregate: { windowHours: 24 } },
        outcome: 'needs_approval',
        approvals: 2,
        role: 'approver',
      },
      {
        id: 'refunds-up-to-100',
        description: 'Refunds up to 100.00 on one order within 24 h need one approver',
        when: null,
        outcome: 'needs_approval',
        approvals: 1,
        role: 'approver',
      },
    ],
  },
];

export type DemoCredentials = {
  url: string;
  systemsOfRecordUrl: string;
  people: { email: string; password: string; tenant: string; role: Role }[];
  agents: { tenant: string; name: string; key: string; actions: string[] }[];
};
