import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { policies, type Routing } from '@/db/schema';
import type { ActionModule, RoutingRule } from '@/lib/actions/types';

export type LoadedPolicy = { version: number; rules: RoutingRule[]; expiryHours: number };

/** The tenant's newest policy for the action, or the action's defaults (version 0). */
export async function loadPolicy(db: Database, tenantId: string, action: ActionModule): Promise<LoadedPolicy> {
  const [row] = await db
    .select({ version: policies.version, rules: policies.rules, expiryHours: policies.expiryHours })
    .from(policies)
    .where(and(eq(policies.tenantId, tenantId), eq(policies.action, action.name)))
    .orderBy(desc(policies.version))
    .limit(1);
  return row
    ? { version: row.version, rules: row.rules as RoutingRule[], expiryHours: row.expiryHours }
    : { version: 0, rules: action.defaultRules, expiryHours: action.defaultExpiryHours };
}

function matches(rule: RoutingRule, args: Record<string, unknown>): boolean {
  if (!rule.when) return true;
  const value = args[rule.when.field];
  return typeof value === 'number' && value > rule.when.above;
}

/** The first rule that matches decides; no match fails closed to a deny. */
export function routeProposal(policy: LoadedPolicy, args: Record<string, unknown>): Routing {
  const rule = policy.rules.find((candidate) => matches(candidate, args));
  if (!rule) return { rule: 'no-matching-rule', policyVersion: policy.version, outcome: 'deny', approvals: 0, role: 'admin' };
  return { rule: rule.id, policyVersion: policy.version, outcome: rule.outcome, approvals: rule.approvals, role: rule.role };
}
