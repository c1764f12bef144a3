import type { Database } from '@/db';
import type { Routing, RoutingAggregate } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { cachedRead, cacheTag } from '@/lib/cache/read-cache';
import { type RoutingRule, routingRulesSchema } from '@/lib/routing-rules';
import { type AggregateNeed, type AggregateScope, aggregateKey, type PriorTotals, priorTotals } from './aggregate';
import { newestPolicy } from './current';

/** `rules` is null when the stored rules do not validate: such a policy only denies. */
export type LoadedPolicy = { version: number; rules: RoutingRule[] | null; expiryHours: number };

/**
 * The tenant's newest policy for the action, or the action's defaults (version 0), validated. A
 * version never changes once published, so the process's read cache keeps it until a newer one is
 * announced (`policy` changes, lib/policy/publish.ts).
 */
export function loadPolicy(db: Database, tenantId: string, action: ActionModule): Promise<LoadedPolicy> {
  const tag = cacheTag.policy(tenantId, action.name);
  return cachedRead(
    db,
    tag,
    () => readPolicy(db, tenantId, action),
    () => [tag],
  );
}

async function readPolicy(db: Database, tenantId: string, action: ActionModule): Promise<LoadedPolicy> {
  const { version, rules, expiryHours } = await newestPolicy(db, tenantId, action);
  const parsed = routingRulesSchema.safeParse(rules);
  if (!parsed.success)
    console.error(
      `[countersign] policy v${version} of ${action.name} in ${tenantId} does not validate; its proposals are denied`,
    );
  return { version, rules: parsed.success ? parsed.data : null, expiryHours };
}

/** The sums the policy's aggregate bounds need, read under the resource lock before routing. */
export function aggregateNeeds(policy: LoadedPolicy): AggregateNeed[] {
  return (policy.rules ?? []).flatMap((rule) =>
    rule.when?.aggregate ? [{ field: rule.when.field, windowHours: rule.when.aggregate.windowHours }] : [],
  );
}

type Evaluation = { matched: boolean; aggregate?: RoutingAggregate };

function evaluate(rule: RoutingRule, args: Record<string, unknown>, priors: PriorTotals): Evaluation {
  if (!rule.when) return { matched: true };
  const { field, above, below, aggregate } = rule.when;
  const value = args[field];
  if (typeof value !== 'number') return { matched: false };
  if (below !== undefined) return { matched: value < below };
  if (above === undefined) return { matched: false };
  if (!aggregate) return { matched: value > above };
  const prior = priors.get(aggregateKey({ field, windowHours: aggregate.windowHours }));
  // Routing without the sum it was told to bound would undercount: refuse to guess.
  if (!prior)
    throw new Error(`routing needs the ${aggregateKey({ field, windowHours: aggregate.windowHours })} aggregate`);
  const total = value + prior.sum;
  return {
    matched: total > above,
    aggregate: { field, windowHours: aggregate.windowHours, priorCount: prior.count, priorSum: prior.sum, total },
  };
}

/**
 * The first rule that matches decides; no match (or an invalid policy) fails closed to a deny.
 * An aggregate bound compares this proposal's value plus `priors` with its limit. The routing
 * record keeps the deciding rule's aggregate, or else the first one evaluated on the way, so the
 * reviewer sees the earlier proposals even when the sum stayed under the bound.
 */
export function routeProposal(
  policy: LoadedPolicy,
  args: Record<string, unknown>,
  priors: PriorTotals = new Map(),
): Routing {
  const base = { policyVersion: policy.version };
  if (!policy.rules) return { ...base, rule: 'invalid-policy', outcome: 'deny', approvals: 0, role: 'admin' };
  let seen: RoutingAggregate | undefined;
  for (const rule of policy.rules) {
    const { matched, aggregate } = evaluate(rule, args, priors);
    seen ??= aggregate;
    if (!matched) continue;
    const context = aggregate ?? seen;
    return {
      ...base,
      rule: rule.id,
      outcome: rule.outcome,
      approvals: rule.approvals,
      role: rule.role,
      ...(rule.passkey ? { passkey: true } : {}),
      ...(context ? { aggregate: context } : {}),
    };
  }
  return {
    ...base,
    rule: 'no-matching-rule',
    outcome: 'deny',
    approvals: 0,
    role: 'admin',
    ...(seen ? { aggregate: seen } : {}),
  };
}

/**
 * Routes `args` by `policy` the way intake does: the sums its aggregate bounds need are read from
 * the tenant's proposals in `scope` (at intake under the resource lock), then the rules decide.
 * The Routing gate and the policy editor's preview both call this; the sums come back too.
 */
export async function routeLive(
  db: Database,
  scope: AggregateScope,
  policy: LoadedPolicy,
  args: Record<string, unknown>,
): Promise<{ routing: Routing; priors: PriorTotals }> {
  const priors = await priorTotals(db, scope, aggregateNeeds(policy));
  return { routing: routeProposal(policy, args, priors), priors };
}
