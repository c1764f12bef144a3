import { sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { actionDefinitions } from '@/db/schema';
import { allActions, findAction } from '@/lib/actions/registry';
import type { ActionModule } from '@/lib/actions/types';
import { BoundedLru } from '@/lib/cache/lru';
import { cachedRead, cacheTag } from '@/lib/cache/read-cache';
import { deprecationHeadersIn, rolloutRows } from '@/lib/contracts/catalog';
import { withRollout } from '@/lib/contracts/rollout';
import { definedAction } from './module';
import { checkDefinition } from './parse';
import { currentDefinitions, type StoredDefinition } from './store';

/**
 * Every action as a tenant has it: the modules Countersign ships, and the tenant's own declared
 * definitions (docs/actions.md; one named as a shipped module is not read), each with
 * the tenant's rollout of its contract versions. Intake, the executor, reconciliation,
 * `GET /api/v1/contracts`, MCP and the dashboard read this. The process's read cache keeps it
 * until a change to the tenant's rollout or definitions is announced (`contracts`, `actions`).
 */
export function tenantActions(db: Database, tenantId: string): Promise<readonly ActionModule[]> {
  const tag = cacheTag.contracts(tenantId);
  const tags = [tag, cacheTag.actions(tenantId)];
  return cachedRead(
    db,
    tag,
    async () => {
      const [rows, definitions] = await Promise.all([rolloutRows(db, tenantId), currentDefinitions(db, tenantId)]);
      // A shipped action's name stays the shipped action's (the plan says so).
      const declared = definitions.flatMap((stored) => (findAction(stored.name) ? [] : (moduleOf(stored) ?? [])));
      return [...allActions(), ...declared].map((action) => withRollout(action, rows));
    },
    () => tags,
  );
}

/**
 * One action by name, as the executor, minting and reconciliation need it (its scope, its effect):
 * a shipped module without a read, else the tenant's definition.
 */
export async function tenantAction(db: Database, tenantId: string, name: string): Promise<ActionModule | undefined> {
  return findAction(name) ?? (await tenantActions(db, tenantId)).find((action) => action.name === name);
}

/** A look-up of actions by name, as `actionFinder` gives it. */
export type ActionFinder = (name: string) => ActionModule | undefined;

/**
 * A look-up for the actions `names` (a page of proposals, say): the shipped modules without a read;
 * the tenant's actions are read only when one of the names is none of them.
 */
export async function actionFinder(db: Database, tenantId: string, names: readonly string[]): Promise<ActionFinder> {
  if (names.every((name) => findAction(name))) return findAction;
  const actions = await tenantActions(db, tenantId);
  return (name) => actions.find((action) => action.name === name);
}

/** Whether a shipped module or any tenant's definition names this executor scope. */
export async function scopeExists(db: Database, scope: string): Promise<boolean> {
  if (allActions().some((action) => action.scope === scope)) return true;
  const [row] = await db
    .select({ name: actionDefinitions.name })
    .from(actionDefinitions)
    .where(sql`${actionDefinitions.document} ->> 'scope' = ${scope}`)
    .limit(1);
  return row !== undefined;
}

// Compiling a definition (its JSON Schemas, its CEL) is the costly part: kept by its document's hash.
const compiled = new BoundedLru<string, ActionModule | null>({ maxEntries: 500, maxWeight: 500, weigh: () => 1 });

/** A stored definition as an action; none when it no longer parses (it was checked when it was published). */
function moduleOf(stored: StoredDefinition): ActionModule | undefined {
  const kept = compiled.get(stored.documentHash);
  if (kept !== undefined) return kept ?? undefined;
  const checked = checkDefinition(stored.document);
  const action = checked.ok ? definedAction(checked.definition, stored.version) : null;
  if (!checked.ok)
    console.error(JSON.stringify({ event: 'definition.unparsable', name: stored.name, version: stored.version }));
  compiled.set(stored.documentHash, action);
  return action ?? undefined;
}

/** The headers for an action's version in a tenant (GET of a proposal). */
export async function deprecationHeadersFor(
  db: Database,
  tenantId: string,
  action: string,
  version: number,
): Promise<Record<string, string>> {
  return deprecationHeadersIn(await tenantActions(db, tenantId), action, version);
}
