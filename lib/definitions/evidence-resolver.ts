import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { tenants } from '@/db/schema';
import { cachedRead, cacheTag, changeTransaction } from '@/lib/cache/read-cache';
import { Refusal } from '@/lib/errors/refusal';
import type { AuditInput } from '@/lib/events/append';
import { recordStateChange } from '@/lib/events/record';
import { isTimeout, SystemsUnavailableError } from '@/lib/systems/client';
import { callService, jsonOf, originAllowed } from './services';

/**
 * A tenant's evidence resolver (docs/actions.md, "Evidence"): the team's service that answers for
 * the evidence refs its agents cite, with the protocol of an action's resolver. `POST {tenant, ref}`
 * → `200 {tenant, id, kind, text}` or `404`; a record of another tenant reads as a missing one.
 * Without one, refs are read from the systems of record (the demo's).
 */

/** The longest evidence text read (characters): a longer record is an unexpected answer (fail closed). */
export const MAX_EVIDENCE_TEXT_CHARS = 20_000;

/** An evidence record as a system of record or a tenant's resolver answers it. */
export const evidenceRecordSchema = z.object({
  id: z.string().max(200),
  tenant: z.string(),
  kind: z.string().max(64),
  text: z.string().max(MAX_EVIDENCE_TEXT_CHARS),
});

export type EvidenceRecord = z.infer<typeof evidenceRecordSchema>;

/** The tenant's evidence resolver, or null; kept until the tenant's actions change (`actions`). */
export function tenantEvidenceResolver(db: Database, tenantId: string): Promise<string | null> {
  return cachedRead(
    db,
    JSON.stringify(['evidence_resolver', tenantId]),
    async () => {
      const [row] = await db
        .select({ resolver: tenants.evidenceResolver })
        .from(tenants)
        .where(eq(tenants.id, tenantId));
      return row?.resolver ?? null;
    },
    () => [cacheTag.actions(tenantId)],
  );
}

/** One ref asked of the tenant's resolver: the record, undefined when it says 404, else SystemsUnavailableError. */
export async function askEvidenceResolver(
  resolver: string,
  tenantId: string,
  ref: string,
): Promise<EvidenceRecord | undefined> {
  let answer: Awaited<ReturnType<typeof callService>>;
  try {
    answer = await callService({ url: resolver, method: 'POST', body: JSON.stringify({ tenant: tenantId, ref }) });
  } catch (error) {
    if (error instanceof SystemsUnavailableError) throw error;
    throw new SystemsUnavailableError(isTimeout(error) ? 'timeout' : 'unreachable');
  }
  const body = await jsonOf(answer);
  if (answer.status === 404) return undefined;
  if (answer.status !== 200) throw new SystemsUnavailableError(`status ${answer.status}`);
  const parsed = evidenceRecordSchema.safeParse(body);
  if (!parsed.success) throw new SystemsUnavailableError('unexpected response shape');
  return parsed.data;
}

/**
 * Sets (a URL) or clears (null) the tenant's evidence resolver, audited `tenant.settings_changed`;
 * every process reads it again once this commits. The URL must be at an origin the operator allows
 * (ACTION_ALLOWED_ORIGINS), as a definition's services must. Undefined for an unknown tenant.
 */
export async function setEvidenceResolver(
  db: Database,
  tenantId: string,
  resolver: string | null,
  actor: AuditInput['actor'],
  now = new Date(),
): Promise<{ changed: boolean } | undefined> {
  if (resolver !== null && !originAllowed(resolver))
    throw new Refusal(
      'invalid_evidence_settings',
      '"resolver" names an origin the operator does not allow; ACTION_ALLOWED_ORIGINS lists the allowed ones.',
    );
  return changeTransaction(db, async (tx, announce) => {
    const [tenant] = await tx
      .select({ resolver: tenants.evidenceResolver })
      .from(tenants)
      .where(eq(tenants.id, tenantId))
      .for('update');
    if (!tenant) return undefined;
    if (tenant.resolver === resolver) return { changed: false };
    await tx.update(tenants).set({ evidenceResolver: resolver }).where(eq(tenants.id, tenantId));
    await recordStateChange(tx, {
      tenantId,
      type: 'tenant.settings_changed',
      actor,
      data: { evidenceResolver: resolver },
      occurredAt: now,
      outbox: false,
    });
    await announce({ kind: 'actions', tenantId });
    return { changed: true };
  });
}
