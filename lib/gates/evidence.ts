import type { EvidenceSnapshot } from '@/db/schema';
import { BoundedLru } from '@/lib/cache/lru';
import { askEvidenceResolver, evidenceRecordSchema } from '@/lib/definitions/evidence-resolver';
import { type SystemsClient, segment } from '@/lib/systems/client';

export { MAX_EVIDENCE_TEXT_CHARS } from '@/lib/definitions/evidence-resolver';

/**
 * Where a tenant's evidence is read: its own resolver (docs/actions.md), or the systems of record
 * with the credential of the action's scope.
 */
export type EvidenceSource = { resolver: string } | { systems: SystemsClient; scope: string };

/** Records kept: a few thousand tickets, at most ~16 MB of text. */
const CACHE_LIMITS = { maxEntries: 5_000, maxWeight: 8_000_000 };

/**
 * Evidence records never change once written, so a found record is kept and not read again. The
 * key holds the tenant (a record resolves in its own tenant only) and where it was read (the
 * resolver, or the scope whose credential read it). A missing record is never kept: it may be
 * written later.
 */
const cache = new BoundedLru<string, EvidenceSnapshot>({
  ...CACHE_LIMITS,
  weigh: (record) => record.text.length + record.kind.length + record.id.length,
});
const cacheKey = (tenantId: string, source: EvidenceSource, ref: string) =>
  JSON.stringify([tenantId, 'resolver' in source ? source.resolver : `scope:${source.scope}`, ref]);

/**
 * Forgets every kept record. Only for the demo systems' test-mode reset, which removes records added
 * at runtime (`POST /__evidence`): a real system of record never takes evidence back.
 */
export function forgetCachedEvidence(): void {
  cache.clear();
}

async function readEvidence(
  source: EvidenceSource,
  tenantId: string,
  ref: string,
): Promise<EvidenceSnapshot | undefined> {
  const key = cacheKey(tenantId, source, ref);
  const kept = cache.get(key);
  if (kept) return { ...kept };
  const record =
    'resolver' in source
      ? await askEvidenceResolver(source.resolver, tenantId, ref)
      : await source.systems.read(`/evidence/${segment(ref)}`, evidenceRecordSchema, source.scope);
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
  source: EvidenceSource,
  tenantId: string,
  refs: string[],
): Promise<EvidenceSnapshot[] | undefined> {
  const records = await Promise.all([...new Set(refs)].map((ref) => readEvidence(source, tenantId, ref)));
  return records.every((record) => record !== undefined) ? records : undefined;
}
