import { z } from 'zod';
import type { EvidenceSnapshot } from '@/db/schema';
import { segment, type SystemsClient } from '@/lib/systems/client';

/** The longest evidence text read (characters): a longer record is an unexpected answer (fail closed). */
export const MAX_EVIDENCE_TEXT_CHARS = 20_000;

const evidenceRecord = z.object({ id: z.string(), tenant: z.string(), kind: z.string().max(64), text: z.string().max(MAX_EVIDENCE_TEXT_CHARS) });

/**
 * Evidence refs are resolved inside the key's tenant for every action (docs/design.md §3): undefined
 * when any ref is missing or another tenant's, the two being the same answer. A ref cited twice is
 * read once and kept once (in the order first cited): twenty citations of one long ticket cost one
 * read and one scan, not twenty.
 */
export async function resolveEvidence(systems: SystemsClient, tenantId: string, refs: string[], scope: string): Promise<EvidenceSnapshot[] | undefined> {
  const distinct = [...new Set(refs)];
  const records = await Promise.all(distinct.map((ref) => systems.read(`/evidence/${segment(ref)}`, evidenceRecord, scope)));
  if (records.some((record) => !record || record.tenant !== tenantId)) return undefined;
  return records.flatMap((record) => (record ? [{ id: record.id, kind: record.kind, text: record.text }] : []));
}
