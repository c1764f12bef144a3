import type { NormalizedPayload } from '@/db/schema';

/**
 * What validation filled in that the agent did not send: top-level payload fields and arguments
 * present in the normalized payload but absent from the raw candidate. Shown beside the payload,
 * because they are hashed and executed like everything else.
 */
export function appliedDefaults(
  rawCandidate: string,
  payload: Pick<NormalizedPayload, 'args' | 'evidenceRefs'>,
): { field: string; value: unknown }[] {
  let raw: unknown;
  try {
    raw = JSON.parse(rawCandidate);
  } catch {
    return [];
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return [];
  const envelope = raw as Record<string, unknown>;
  const sentArgs =
    envelope.args !== null && typeof envelope.args === 'object' && !Array.isArray(envelope.args)
      ? (envelope.args as Record<string, unknown>)
      : {};
  const defaults: { field: string; value: unknown }[] = [];
  if (!('evidenceRefs' in envelope)) defaults.push({ field: 'evidenceRefs', value: payload.evidenceRefs });
  for (const [name, value] of Object.entries(payload.args)) {
    if (!(name in sentArgs)) defaults.push({ field: `args.${name}`, value });
  }
  return defaults;
}
