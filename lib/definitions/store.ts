import { and, desc, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { type ActionDefinitionRow, actionDefinitions, contractRollouts } from '@/db/schema';
import { changeTransaction } from '@/lib/cache/read-cache';
import { env } from '@/lib/env';
import { appendAudit } from '@/lib/events/append';
import { payloadHash } from '@/lib/payload-hash';
import type { Definition } from './document';
import { checkDefinition, type DefinitionProblem } from './parse';
import { originAllowed } from './services';

/**
 * A tenant's action definitions, versioned: publishing adds a version (never changes one), and the
 * newest version of each name is the current one, read by lib/definitions/catalog.ts.
 */

export const NOTE_MAX = 500;

/** Who published: a person, or a system actor (the CLI). */
export type Publisher = { type: 'user' | 'system'; id: string };

export type PublishInput = {
  tenantId: string;
  document: Definition;
  note: string;
  by: Publisher;
  /**
   * The version the document was planned against (0: none yet). When given and no longer the
   * newest, nothing is published (`conflict`): publishing would undo a change the plan never showed.
   */
  baseVersion?: number;
};

export type PublishResult =
  | { published: true; name: string; version: number; documentHash: string }
  /** The document is the current version's, byte for byte in canonical form: nothing was written. */
  | { published: false; reason: 'unchanged'; name: string; version: number }
  /** Another publish of the name took the next version first, or the base version is not the newest: plan again. */
  | { published: false; reason: 'conflict'; name: string; version: number }
  | { published: false; reason: 'invalid'; name: string; problems: DefinitionProblem[] };

/**
 * Publishes a definition as the next version of its name in the tenant, with its `action.published`
 * event, in one transaction, replacing the tenant's rollout changes to the action's versions (the
 * document states every version's status). The document is checked again here (whoever calls), and refused when
 * it is invalid, when the note is not 1–500 characters, or when it is the current version unchanged.
 */
export async function publishDefinition(db: Database, input: PublishInput): Promise<PublishResult> {
  const { tenantId, document, note, by, baseVersion } = input;
  const { name } = document;
  const checked = checkDefinition(document);
  if (!checked.ok) return { published: false, reason: 'invalid', name, problems: checked.problems };
  if (note.trim().length === 0 || note.length > NOTE_MAX)
    return {
      published: false,
      reason: 'invalid',
      name,
      problems: [{ path: 'note', message: `The note says why it is published: 1 to ${NOTE_MAX} characters.` }],
    };
  const refused = publishProblems(document);
  if (refused.length > 0) return { published: false, reason: 'invalid', name, problems: refused };
  const documentHash = payloadHash(checked.definition.document);
  return changeTransaction(db, async (tx, announce) => {
    const [current] = await tx
      .select({ version: actionDefinitions.version, documentHash: actionDefinitions.documentHash })
      .from(actionDefinitions)
      .where(and(eq(actionDefinitions.tenantId, tenantId), eq(actionDefinitions.name, name)))
      .orderBy(desc(actionDefinitions.version))
      .limit(1);
    if (current?.documentHash === documentHash)
      return { published: false, reason: 'unchanged', name, version: current.version } as const;
    if (baseVersion !== undefined && baseVersion !== (current?.version ?? 0))
      return { published: false, reason: 'conflict', name, version: current?.version ?? 0 } as const;
    const version = (current?.version ?? 0) + 1;
    // Two publishes of one name race for the same version: the primary key lets one in.
    const [row] = await tx
      .insert(actionDefinitions)
      .values({
        tenantId,
        name,
        version,
        document: checked.definition.document,
        documentHash,
        note,
        publishedBy: by.id,
      })
      .onConflictDoNothing()
      .returning({ version: actionDefinitions.version });
    if (!row) return { published: false, reason: 'conflict', name, version } as const;
    // The document says each version's status: rollout changes made since the last publish give way (the plan said so).
    await tx
      .delete(contractRollouts)
      .where(and(eq(contractRollouts.tenantId, tenantId), eq(contractRollouts.action, name)));
    // Every process reads the tenant's actions again when this commits (lib/definitions/catalog.ts).
    await announce({ kind: 'actions', tenantId });
    await appendAudit(tx, {
      tenantId,
      type: 'action.published',
      actor: by,
      reasonCode: `v${version}`,
      data: { action: name, version, documentHash, note },
    });
    return { published: true, name, version, documentHash } as const;
  });
}

/**
 * What a document may say only where it is published: the services it names must be at origins the
 * operator allows (ACTION_ALLOWED_ORIGINS), a list read when the server starts.
 */
export function publishProblems(document: Definition, allowed: readonly string[] = env().ACTION_ALLOWED_ORIGINS) {
  const problems: DefinitionProblem[] = [];
  for (const key of ['resolve', 'executor'] as const)
    if (!originAllowed(document[key], allowed))
      problems.push({
        path: key,
        message: `"${key}" names an origin the operator does not allow; ACTION_ALLOWED_ORIGINS lists the allowed ones.`,
      });
  return problems;
}

export type StoredDefinition = Omit<ActionDefinitionRow, 'document'> & { document: Definition };

/** The newest version of each of the tenant's definitions, by name. */
export async function currentDefinitions(db: Database, tenantId: string): Promise<StoredDefinition[]> {
  const rows = await db
    .selectDistinctOn([actionDefinitions.name])
    .from(actionDefinitions)
    .where(eq(actionDefinitions.tenantId, tenantId))
    .orderBy(actionDefinitions.name, desc(actionDefinitions.version));
  return rows as StoredDefinition[];
}

/** Every version of one of the tenant's definitions, newest first. */
export async function definitionHistory(db: Database, tenantId: string, name: string): Promise<StoredDefinition[]> {
  const rows = await db
    .select()
    .from(actionDefinitions)
    .where(and(eq(actionDefinitions.tenantId, tenantId), eq(actionDefinitions.name, name)))
    .orderBy(desc(actionDefinitions.version));
  return rows as StoredDefinition[];
}
