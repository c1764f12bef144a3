import type { Database } from '@/db';
import type { OpenClaims, Resolution } from '@/lib/actions/types';
import { openClaims } from '@/lib/gates/claims';
import { pass, refuse, type Gate } from './types';

export type RulesInput = {
  db: Database;
  resolution: Resolution;
  /** Whose open proposals count against this one; null counts none. */
  resourceKey: string | null;
  /** A proposal whose claim is not counted: the one checked again, or the parent a revision replaces. */
  excludeId?: string;
};

/**
 * The action's business rules against live state and the resource's open proposals. At intake it
 * runs under the per-resource lock, so each open proposal is counted exactly once. Passes on what
 * the open proposals claim, so later steps under the same lock need not read it again.
 */
export const rulesGate: Gate<RulesInput, OpenClaims> = async ({ tenantId, action, args }, { db, resolution, resourceKey, excludeId }) => {
  const open = resourceKey ? await openClaims(db, tenantId, resourceKey, action, excludeId) : { count: 0, total: 0 };
  const violation = action.checkRules(args, resolution, open);
  return violation ? refuse('rules', violation.code, violation.message) : pass(open);
};
