import { z } from 'zod';
import type { EvidenceSnapshot } from '@/db/schema';
import { BoundedLru } from '@/lib/cache/lru';
import { type SystemsClient, segment } from '@/lib/systems/client';

/** The longest evidence text read (characters): a longer record is an unexpected answer (fail closed). */
export const MAX_EVIDENCE_TEXT_CHARS = 20_000;

const evidenceRecord = z.object({
  id: z.string(),
  tenant: z.string(),
  kind: z.string().max(64),
  text: z.string().max(MAX_EVIDENCE_TEXT_CHARS),
});

/** Records kept: a few thousand tickets, at most ~16 MB of text. */
const CACHE_LIMITS = { maxEntries: 5_000, maxWeight: 8_000_000 };

/**
 * Evidence records never change once written, so a found record is kept and not read again. The
 * key holds the tenant (a record resolves in its own tenant only) and the scope whose credential
 * read it. A missing record is never kept: it may be written later.
 */
const cache = new BoundedLru<string, EvidenceSnapshot>({
  ...CACHE_LIMITS,
  weigh: (record) => record.text.length + record.kind.length + record.id.length,
});
const cacheKey = (tenantId: string, scope: string, ref: string) => JSON.stringify([tenantId, scope, ref]);

/**
 * Forgets every kept record. Only for the demo systems' test-mode reset, which removes records added
 * at runtime (`POST /__evidence`): a real system of record never takes evidence back.
 */
export function forgetCachedEvidence(): void {
  cache.clear();
}

async function readEvidence(
  systems: SystemsClient,
  tenantId: string,
  ref: string,
  scope: string,
): Promise<EvidenceSnapshot | undefined> {
  const key = cacheKey(tenantId, scope, ref);
  const kept = cache.get(key);
  if (kept) return { ...kept };
  const record = await systems.read(`/evidence/${segment(ref)}`, evidenceRecord, scope);
  if (!record || record.tenant !== tenantId) return undefined;
  const snapshot = { id: record.id, kind: record.kind, text: record.text };
  cache.set(key, snapshot);
  return { ...snapshot };
}

/**
 * Evidence refs are resolved inside the key's tenant for every action (docs/design.md §3): undefined
 * when any ref is missing or another tenant's, the two being the same answer. A ref cited twice is
 * read once and kept once (in the order first cited): twenty citations of one long ticket cost one
 * read and one scan, not twenty.
 */
export async function resolveEvidence(
  systems: SystemsClient,
  tenantId: string,
  refs: string[],
  scope: string,
): Promise<EvidenceSnapshot[] | undefined> {
  const records = await Promise.all([...new Set(refs)].map((ref) => readEvidence(systems, tenantId, ref, scope)));
  return records.every((record) => record !== undefined) ? records : undefined;
}
