import type { Resolution } from '@/lib/actions/types';
import { type Gate, pass, refuse } from './types';

export type AuthorityInput = {
  /** The agent key's grants as they are now (read again at decision time). */
  grants: Record<string, string[]>;
  resolution: Resolution;
};

/**
 * Authority beyond the action list: the key's grants cover the resolved resource (e.g. its
 * warehouse). It runs before the rules, so a resource outside the key's scope reveals nothing,
 * not even its limits.
 */
export const authorityGate: Gate<AuthorityInput, void> = async ({ action }, { grants, resolution }) =>
  action.authorize(grants, resolution)
    ? pass(undefined)
    : refuse('authority', 'not_covered', `The key's grants do not cover ${resolution.resourceKey}.`);
