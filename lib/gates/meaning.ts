import type { EvidenceSnapshot } from '@/db/schema';
import type { Resolution } from '@/lib/actions/types';
import type { SystemsClient } from '@/lib/systems/client';
import { resolveEvidence } from './evidence';
import { type Gate, pass, refuse } from './types';

export type MeaningInput = {
  systems: SystemsClient;
  /** The refs to resolve; none when checking again, as the evidence is a snapshot kept with the proposal. */
  evidenceRefs: string[];
  /** The tenant's evidence resolver, when it has one (else the refs are read from the systems of record). */
  evidenceResolver?: string | null;
};

export type Meant = { resolution: Resolution; evidence: EvidenceSnapshot[] };

/**
 * Meaning: the resource and every evidence ref, read from the system of record inside the tenant
 * (docs/design.md §3). Missing and another tenant's are one refusal each, never told apart.
 */
export const meaningGate: Gate<MeaningInput, Meant> = async (
  { tenantId, action, args, contractVersion },
  { systems, evidenceRefs, evidenceResolver },
) => {
  const source = evidenceResolver ? { resolver: evidenceResolver } : { systems, scope: action.scope };
  const [resolution, evidence] = await Promise.all([
    action.resolve(systems, tenantId, args, contractVersion),
    resolveEvidence(source, tenantId, evidenceRefs),
  ]);
  if (!resolution) return refuse('meaning', 'resource_not_found', 'The resource does not exist in this tenant.');
  if (!evidence)
    return refuse('meaning', 'evidence_not_found', 'A cited evidence record does not exist in this tenant.');
  return pass({ resolution, evidence });
};
