import type { ActionModule, Resolution } from '@/lib/actions/types';

type Facts = Record<string, string | number>;

/**
 * What moved between the facts read at intake and the facts read now, in words for a person;
 * undefined when nothing did. An action may say it in its own terms; otherwise each fact is named.
 */
export function describeFactChanges(action: ActionModule, before: Facts, after: Facts): string | undefined {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const moved = keys.filter((key) => String(before[key] ?? '') !== String(after[key] ?? ''));
  if (moved.length === 0) return undefined;
  const own = action.describeChange?.(before, after);
  if (own) return `${own} since it was proposed`;
  const changes = moved.map((key) => `${key} changed from ${before[key] === undefined ? '(none)' : String(before[key])} to ${after[key] === undefined ? '(none)' : String(after[key])}`);
  return `${changes.join('; ')} since it was proposed`;
}

/** Why the resolved resource no longer matches the proposal, if it does not. */
export function describeResourceChange(resourceKey: string | null, resolution: Resolution | undefined): string | undefined {
  if (!resolution) return 'the resource can no longer be found in the system of record';
  if (resourceKey !== null && resolution.resourceKey !== resourceKey) {
    return `the resource is now ${resolution.resourceKey}, not ${resourceKey} as when it was proposed`;
  }
  return undefined;
}
