import canonicalize from 'canonicalize';
import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { policies, proposals, users } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { tenantActions } from '@/lib/definitions/catalog';
import { type RoutingRule, routingRulesSchema } from '@/lib/routing-rules';
import type { PolicyView } from './requests';

/**
 * The tenant's newest version of an action's policy as stored (rules unparsed), or the action's defaults as version 0.
 */
export type StoredPolicy = {
  version: number;
  rules: unknown;
  expiryHours: number;
  createdAt: Date | null;
  createdBy: { name: string; email: string } | null;
  note: string | null;
};

export async function newestPolicy(db: Database, tenantId: string, action: ActionModule): Promise<StoredPolicy> {
  const [row] = await db
    .select({
      version: policies.version,
      rules: policies.rules,
      expiryHours: policies.expiryHours,
      createdAt: policies.createdAt,
      note: policies.note,
      name: users.name,
      email: users.email,
    })
    .from(policies)
    .leftJoin(users, eq(users.id, policies.createdBy))
    .where(and(eq(policies.tenantId, tenantId), eq(policies.action, action.name)))
    .orderBy(desc(policies.version))
    .limit(1);
  if (!row)
    return {
      version: 0,
      rules: action.defaultRules,
      expiryHours: action.defaultExpiryHours,
      createdAt: null,
      createdBy: null,
      note: null,
    };
  const createdBy = row.name !== null && row.email !== null ? { name: row.name, email: row.email } : null;
  return {
    version: row.version,
    rules: row.rules,
    expiryHours: row.expiryHours,
    createdAt: row.createdAt,
    createdBy,
    note: row.note,
  };
}

/** Stored rules through the router's schema; a row that does not validate (routes only denies) is shown as stored. */
export function storedRules(rules: unknown): RoutingRule[] {
  const parsed = routingRulesSchema.safeParse(rules);
  return parsed.success ? parsed.data : (rules as RoutingRule[]);
}

/** Whether a draft's rules and expiry are the stored version's (then saving publishes nothing). */
export function samePolicy(stored: StoredPolicy, draft: { rules: RoutingRule[]; expiryHours: number }): boolean {
  return (
    canonicalize({ rules: storedRules(stored.rules), expiryHours: stored.expiryHours }) ===
    canonicalize({ rules: draft.rules, expiryHours: draft.expiryHours })
  );
}

/** The tenant's policy document: each of its actions' newest version (or its defaults, version 0). */
export async function currentPolicies(db: Database, tenantId: string): Promise<PolicyView[]> {
  const views: PolicyView[] = [];
  for (const action of await tenantActions(db, tenantId)) {
    const stored = await newestPolicy(db, tenantId, action);
    views.push({
      action: action.name,
      version: stored.version,
      rules: storedRules(stored.rules),
      expiryHours: stored.expiryHours,
      createdAt: stored.createdAt?.toISOString() ?? null,
      createdBy: stored.createdBy,
      note: stored.note,
    });
  }
  return views;
}

/**
 * The arguments of the tenant's newest proposal of the action: a realistic sample for the preview ({} when there is
 * none).
 */
export async function recentSampleArgs(
  db: Database,
  tenantId: string,
  action: string,
): Promise<Record<string, unknown>> {
  const [row] = await db
    .select({ payload: proposals.payload })
    .from(proposals)
    .where(and(eq(proposals.tenantId, tenantId), eq(proposals.action, action)))
    .orderBy(desc(proposals.createdAt))
    .limit(1);
  return row?.payload.args ?? {};
}
