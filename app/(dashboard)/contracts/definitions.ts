import 'server-only';
import type { ActionDefinitionView } from '@/components/action-definition';
import { actorResolver } from '@/lib/audit/actors';
import type { getDb } from '@/lib/database';
import { currentDefinitions, definitionHistory, type StoredDefinition } from '@/lib/definitions/store';

type Database = Awaited<ReturnType<typeof getDb>>;

/** The CLI publishes as this system actor (scripts/cli.ts). */
const CLI = 'cli';

/**
 * The tenant's declared actions as the Contracts page shows them: each current document with every
 * version, newest first, and who published each in words (one look-up for every name).
 */
export async function definitionViews(db: Database, tenantId: string): Promise<ActionDefinitionView[]> {
  const current = await currentDefinitions(db, tenantId);
  const histories = await Promise.all(current.map((stored) => definitionHistory(db, tenantId, stored.name)));
  const refs = histories
    .flat()
    .filter((row) => row.publishedBy !== CLI)
    .map((row) => ({ actorType: 'user', actorId: row.publishedBy }));
  const actorOf = await actorResolver(db, tenantId, refs);
  const version = (row: StoredDefinition) => ({
    version: row.version,
    documentHash: row.documentHash,
    note: row.note,
    publishedAt: row.publishedAt.toISOString(),
    publishedBy:
      row.publishedBy === CLI
        ? { id: CLI, label: 'the command line (actions:apply)' }
        : { id: row.publishedBy, label: actorOf({ actorType: 'user', actorId: row.publishedBy }).label },
  });
  return current.map((stored, index) => ({
    name: stored.name,
    document: stored.document,
    versions: (histories[index] ?? [stored]).map(version),
  }));
}
