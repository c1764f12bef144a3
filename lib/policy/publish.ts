import type { Database } from '@/db';
import { policies } from '@/db/schema';
import { changeTransaction } from '@/lib/cache/read-cache';
import { recordStateChange } from '@/lib/events/record';
import { endGrantsOfAction } from '@/lib/grants/end';
import { newId } from '@/lib/ids';
import type { RoutingRule } from '@/lib/routing-rules';

/** `note`: why it was published (a person's save requires one; the seed and tests may leave it out). */
export type PolicyVersion = {
  tenantId: string;
  action: string;
  version: number;
  rules: RoutingRule[];
  expiryHours?: number;
  note?: string;
};

/** Who published it: a person (stored as the version's author) or a system (the demo seed). */
export type Publisher = { type: 'user' | 'system'; id: string };

/**
 * Publishes a new version of an action's routing policy in a tenant (the newest version routes
 * new proposals) with its `policy.published` event, in one transaction. The event names the
 * action, the version, its rules' ids and the change note; the rules themselves stay in `policies`. Answers false,
 * writing nothing, when that version already exists. Every process's read cache forgets the
 * action's policy when it commits.
 */
export async function publishPolicy(db: Database, input: PolicyVersion, by: Publisher): Promise<boolean> {
  return changeTransaction(db, async (tx, announce) => {
    const [row] = await tx
      .insert(policies)
      .values({
        id: newId('pol'),
        tenantId: input.tenantId,
        action: input.action,
        version: input.version,
        rules: input.rules,
        expiryHours: input.expiryHours,
        note: input.note ?? null,
        createdBy: by.type === 'user' ? by.id : null,
      })
      .onConflictDoNothing()
      .returning({ id: policies.id });
    if (!row) return false;
    await announce({ kind: 'policy', tenantId: input.tenantId, action: input.action, version: input.version });
    // Grants were made under the rules that routed their proposals: new rules end them at once (docs/grants.md).
    await endGrantsOfAction(tx, { tenantId: input.tenantId, action: input.action, by });
    await recordStateChange(tx, {
      tenantId: input.tenantId,
      type: 'policy.published',
      actor: by,
      reasonCode: `v${input.version}`,
      data: {
        policy: row.id,
        action: input.action,
        version: input.version,
        rules: input.rules.map((rule) => rule.id).join(','),
        ...(input.note !== undefined ? { note: input.note } : {}),
      },
      outbox: false,
    });
    return true;
  });
}
