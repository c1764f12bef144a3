import { z } from 'zod';
import type { EvidenceSnapshot } from '@/db/schema';
import { segment, type SystemsClient } from '@/lib/systems/client';

const evidenceRecord = z.object({ id: z.string(), tenant: z.string(), kind: z.string().max(64), text: z.string().max(20_000) });

/**
 * Evidence refs are resolved inside the key's tenant for every action (DESIGN.md §3): undefined
 * when any ref is missing or another tenant's, the two being the same answer.
 */
export async function resolveEvidence(systems: SystemsClient, tenantId: string, refs: string[], scope: string): Promise<EvidenceSnapshot[] | undefined> {
  const records = await Promise.all(refs.map((ref) => systems.read(`/evidence/${segment(ref)}`, evidenceRecord, scope)));
  if (records.some((record) => !record || record.tenant !== tenantId)) return undefined;
  return records.flatMap((record) => (record ? [{ id: record.id, kind: record.kind, text: record.text }] : []));
}
