import 'server-only';
import type { Database } from '@/db';
import { notFound, Refusal } from '@/lib/errors/refusal';
import { payloadHash } from '@/lib/payload-hash';
import type {
  DefinitionHistory,
  DefinitionList,
  DefinitionPlanAnswer,
  DefinitionPublished,
  StoredDefinitionView,
} from './answers';
import { checkDefinition, type DefinitionProblem } from './parse';
import { definitionPlanLines, planDefinition } from './plan';
import type { DefinitionPublishRequest } from './requests';
import {
  currentDefinitions,
  definitionHistory,
  type Publisher,
  publishDefinition,
  type StoredDefinition,
} from './store';

/**
 * The action definitions admin API (`/api/v1/admin/actions`, docs/actions.md): the CLI's plan and
 * publish (plan.ts, store.ts) called for the admin's tenant, answered as JSON.
 */

function view(row: StoredDefinition): StoredDefinitionView {
  const { name, version, documentHash, note, publishedBy, publishedAt, document } = row;
  return { name, version, documentHash, note, publishedBy, publishedAt: publishedAt.toISOString(), document };
}

export async function definitionList(db: Database, tenantId: string): Promise<DefinitionList> {
  return { actions: (await currentDefinitions(db, tenantId)).map(view) };
}

/** Every version of one definition, newest first; a name the tenant never published is 404, like another tenant's. */
export async function definitionVersions(db: Database, tenantId: string, name: string): Promise<DefinitionHistory> {
  const versions = await definitionHistory(db, tenantId, name);
  if (versions.length === 0) throw notFound('action definition');
  return { name, versions: versions.map(view) };
}

/** What `actions:plan` says of the document, as data and as its lines; writes nothing. */
export async function definitionPlan(db: Database, tenantId: string, document: unknown): Promise<DefinitionPlanAnswer> {
  // Through the CLI's own entry (JSON text in), so the API and `actions:plan` cannot differ.
  const plan = await planDefinition(db, tenantId, JSON.stringify(document));
  const lines = definitionPlanLines(plan);
  if (!plan.ok) return { valid: false, problems: plan.problems, warnings: plan.warnings, lines };
  return {
    valid: true,
    name: plan.name,
    currentVersion: plan.current ?? null,
    unchanged: plan.unchanged,
    changes: plan.changes.words,
    breaking: plan.changes.breaking,
    replay: plan.replay,
    warnings: plan.warnings,
    lines,
  };
}

const invalid = (problems: DefinitionProblem[]) =>
  new Refusal(
    'invalid_definition',
    'The definition is not valid: see the problems, each named by its path in the document.',
    { problems },
  );

/**
 * Publishes the document as the next version (publishDefinition: checked again, audited as
 * `action.published`, the cache told in its transaction). 201 with the new version; 200 with
 * `unchanged` when it is the current version's document; 422 with the problems; 409 when another
 * publish came first or `baseVersion` is no longer the newest.
 */
export async function publishDefinitionAnswer(
  db: Database,
  tenantId: string,
  by: Publisher,
  body: DefinitionPublishRequest,
): Promise<{ status: 200 | 201; answer: DefinitionPublished }> {
  const checked = checkDefinition(body.document);
  if (!checked.ok) throw invalid(checked.problems);
  const { document } = checked.definition;
  const result = await publishDefinition(db, {
    tenantId,
    document,
    note: body.note,
    by,
    ...(body.baseVersion !== undefined ? { baseVersion: body.baseVersion } : {}),
  });
  if (result.published) {
    const { name, version, documentHash } = result;
    return { status: 201, answer: { name, version, documentHash, unchanged: false } };
  }
  switch (result.reason) {
    case 'invalid':
      throw invalid(result.problems);
    case 'unchanged':
      return {
        status: 200,
        answer: { name: result.name, version: result.version, documentHash: payloadHash(document), unchanged: true },
      };
    case 'conflict':
      throw new Refusal(
        'stale_definition',
        `${result.name} is at v${result.version} now, which your plan did not see: plan again and publish.`,
        { action: result.name, currentVersion: result.version },
      );
  }
}
