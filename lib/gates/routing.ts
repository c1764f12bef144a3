import type { Database } from '@/db';
import type { Routing } from '@/db/schema';
import type { PriorTotals } from '@/lib/policy/aggregate';
import { type LoadedPolicy, routeLive } from '@/lib/policy/routing';
import { type Gate, pass, refuse } from './types';

export type RoutingInput = {
  db: Database;
  policy: LoadedPolicy;
  resourceKey: string;
  now: Date;
  /** The parent of a revision: the revision replaces it, so its amount must not count twice. */
  excludeId?: string;
};

/**
 * Routing by the tenant's policy: auto-approve, N approvers, or deny. Aggregate bounds are summed
 * by the database; at intake this runs under the same resource lock as the rules, so concurrent
 * slices of one split request each see the ones before them. Passes on the sums it read too.
 */
export const routingGate: Gate<RoutingInput, { routing: Routing; priors: PriorTotals }> = async (
  { tenantId, action, args },
  { db, policy, resourceKey, now, excludeId },
) => {
  const routed = await routeLive(db, { tenantId, action: action.name, resourceKey, now, excludeId }, policy, args);
  const { routing } = routed;
  if (routing.outcome === 'deny') {
    return refuse(
      'routing',
      'denied_by_policy',
      `Policy rule "${routing.rule}" (v${routing.policyVersion}) does not allow this ${action.name}.`,
    );
  }
  return pass(routed);
};
