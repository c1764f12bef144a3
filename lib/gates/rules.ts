import type { OpenClaims, Resolution } from '@/lib/actions/types';
import { type Gate, pass, refuse } from './types';

export type RulesInput = {
  resolution: Resolution;
  /**
   * What the other open proposals on the resource claim (lib/gates/claims.ts): at intake read from
   * the claims row it holds locked, so each open proposal is counted exactly once.
   */
  open: OpenClaims;
};

/**
 * The action's business rules against live state and the resource's open proposals. Passes on what
 * the open proposals claim, so later steps under the same lock need not read it again.
 */
export const rulesGate: Gate<RulesInput, OpenClaims> = async ({ action, args, agent }, { resolution, open }) => {
  const violation = action.checkRules(args, resolution, open, agent);
  if (!violation) return pass(open);
  const { code, message, ruleCode } = violation;
  return ruleCode ? { ok: false, refusal: { gate: 'rules', code, message, ruleCode } } : refuse('rules', code, message);
};
