import type { z } from 'zod';
import type { Database } from '@/db';
import type { ActionModule } from '@/lib/actions/types';
import { changeTransaction } from '@/lib/cache/read-cache';
import { tenantActions } from '@/lib/definitions/catalog';
import { Refusal } from '@/lib/errors/refusal';
import { currentPolicies, newestPolicy, samePolicy, storedRules } from './current';
import { type Publisher, publishPolicy } from './publish';
import {
  type PolicyChange,
  type PolicyEntry,
  type PolicySaveResult,
  policyDocumentSchema,
  policyDraftSchema,
} from './requests';
import { actionAt, boundIssues, invalid, policyIssues } from './validate';

export function stalePolicy(action: string, currentVersion: number, yourVersion: number): Refusal {
  return new Refusal(
    'stale_policy',
    `The ${action} policy is at v${currentVersion} now; you edited v${yourVersion}. Reload it, make your ` +
      `change again and save.`,
    { action, currentVersion, yourVersion },
  );
}

/** An action `parseDocument` found among the tenant's. */
export function actionNamed(actions: readonly ActionModule[], name: string): ActionModule {
  const action = actions.find((each) => each.name === name);
  if (!action) throw new Error(`parseDocument let through ${name}, no action of the tenant`);
  return action;
}

/** The document through the router's own rule schema, then the checks that need each action. */
export function parseDocument<S extends typeof policyDocumentSchema | typeof policyDraftSchema>(
  input: unknown,
  schema: S,
  actions: readonly ActionModule[],
): { entries: PolicyEntry[]; note: z.infer<S>['note'] } {
  const parsed = schema.safeParse(input);
  if (!parsed.success)
    throw invalid(
      'invalid_policy',
      'The policy is not valid: see the issues, each naming its field.',
      policyIssues(parsed.error, input, schema),
    );
  const issues = parsed.data.policies.flatMap((entry, index) => {
    const found = actionAt(actions, entry.action, `policies.${index}.action`);
    return 'issue' in found ? [found.issue] : boundIssues(found.action, entry.rules, `policies.${index}.rules`);
  });
  if (issues.length > 0)
    throw invalid('invalid_policy', 'The policy is not valid: see the issues, each naming its field.', issues);
  // Name order, so two saves touching the same actions take their version locks in one order.
  const entries = [...parsed.data.policies].sort((a, b) => (a.action < b.action ? -1 : a.action > b.action ? 1 : 0));
  return { entries, note: parsed.data.note };
}

/**
 * `PUT /api/v1/admin/policies`: for each action whose rules or expiry changed, a new immutable
 * version (the edited one + 1) through `publishPolicy`, all in one transaction with their
 * `policy.published` events, each version and event carrying the document's change note.
 * Optimistic concurrency: every entry names the version it was edited
 * from; if that is no longer the newest, or another save publishes the same next version first
 * (the unique version index decides), nothing is saved and the answer is 409 `stale_policy`.
 * An unchanged action gets no version. New versions route new proposals only: a pending proposal
 * keeps the routing stored on it.
 */
export async function savePolicies(
  db: Database,
  tenantId: string,
  by: Publisher,
  input: unknown,
): Promise<PolicySaveResult> {
  const actions = await tenantActions(db, tenantId);
  const { entries, note } = parseDocument(input, policyDocumentSchema, actions);
  const saved = await changeTransaction(db, async (tx, announce) => {
    const changes: PolicyChange[] = [];
    for (const entry of entries) {
      const current = await newestPolicy(tx, tenantId, actionNamed(actions, entry.action));
      if (current.version !== entry.version) throw stalePolicy(entry.action, current.version, entry.version);
      const before = { rules: storedRules(current.rules), expiryHours: current.expiryHours };
      const after = { rules: entry.rules, expiryHours: entry.expiryHours };
      if (samePolicy(current, after)) continue;
      const version = current.version + 1;
      const published = await publishPolicy(tx, { tenantId, action: entry.action, version, ...after, note }, by);
      if (!published) throw stalePolicy(entry.action, version, entry.version);
      // publishPolicy announced it in this transaction too; announced here, this process forgets it once it commits.
      await announce({ kind: 'policy', tenantId, action: entry.action, version });
      changes.push({ action: entry.action, previousVersion: current.version, version, before, after });
    }
    return changes;
  });
  const unchanged = entries
    .map((entry) => entry.action)
    .filter((name) => !saved.some((change) => change.action === name));
  return { saved, unchanged, policies: await currentPolicies(db, tenantId) };
}
