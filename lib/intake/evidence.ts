import { z } from 'zod';
import type { EvidenceSnapshot } from '@/db/schema';
import { notAuthorized } from '@/lib/http/errors';
import { segment, type SystemsClient } from '@/lib/systems/client';

const evidenceRecord = z.object({ id: z.string(), tenant: z.string(), kind: z.string().max(64), text: z.string().max(20_000) });

/**
 * Evidence refs are resolved inside the key's tenant for every action (DESIGN.md §3): a missing
 * ref and another tenant's ref are the same not_authorized.
 */
export async function resolveEvidence(systems: SystemsClient, tenantId: string, refs: string[], scope: string): Promise<EvidenceSnapshot[]> {
  const records = await Promise.all(refs.map((ref) => systems.read(`/evidence/${segment(ref)}`, evidenceRecord, scope)));
  return records.map((record) => {
    if (!record || record.tenant !== tenantId) throw notAuthorized();
    return { id: record.id, kind: record.kind, text: record.text };
  });
}
