import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Database } from '@/db';
import { type AgentKey, agentKeys, tenants } from '@/db/schema';
import { allActions, findAction } from '@/lib/actions/registry';
import { type ActionModule, GRANT_VALUE } from '@/lib/actions/types';
import { generateAgentKey } from '@/lib/agents/authenticate';
import { AGENT_NAME } from '@/lib/agents/name';
import { changeTransaction } from '@/lib/cache/read-cache';
import { tenantActions } from '@/lib/definitions/catalog';
import type { ErrorKey } from '@/lib/errors/codes';
import { Refusal } from '@/lib/errors/refusal';
import { recordStateChange } from '@/lib/events/record';
import { newId } from '@/lib/ids';

/**
 * Agent keys as an admin manages them (Settings → Agent keys, `/api/v1/admin/agent-keys`, the
 * CLI): issue, revoke, rotate with an overlap. Every change is one transaction with its audit
 * event, announced to every process's read cache (lib/cache/read-cache.ts: a revoked key is
 * refused on every replica as soon as they hear it); every look-up is inside one tenant, so
 * another tenant's key id reads as unknown.
 */

export type Actor = { type: 'user' | 'system'; id: string };

/** The longest overlap a rotation allows: one week, in minutes. */
export const MAX_OVERLAP_MINUTES = 7 * 24 * 60;

const shippedNames = allActions().map((action) => action.name);
/** A declared action's name (lower snake case): whether the tenant has it is checked when the key is issued. */
const DECLARED_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** The issues of a key's grants against the actions it names: each grant must be one of theirs, each value allowed. */
function grantIssues(
  actions: readonly Pick<ActionModule, 'grants'>[],
  grants: Record<string, string[]>,
): { path: (string | number)[]; message: string }[] {
  const declared = new Map(actions.flatMap((action) => action.grants ?? []).map((grant) => [grant.name, grant]));
  return Object.entries(grants).flatMap(([name, values]) => {
    const grant = declared.get(name);
    if (!grant) {
      const known = [...declared.keys()];
      return [
        {
          path: ['grants', name],
          message: known.length
            ? `is not a grant of the chosen actions (${known.join(', ')})`
            : 'is not a grant of the chosen actions; they read none',
        },
      ];
    }
    return values.flatMap((entry, index) => {
      if (grant.values ? grant.values.includes(entry) : GRANT_VALUE.test(entry)) return [];
      const expected = grant.values
        ? `one of ${grant.values.join(', ')}`
        : '1–40 characters of letters, digits, ".", "_" and "-"';
      return [{ path: ['grants', name, index], message: `must be ${expected}` }];
    });
  });
}

/** A new key's fields: an agent name, the actions it may propose, and the grants those actions read. */
export const agentKeyInput = z
  .strictObject({
    name: z
      .string({ error: 'must be a string' })
      .regex(
        AGENT_NAME,
        'must be 1–64 characters of letters, digits, ".", "_" and "-", starting with a letter or digit',
      ),
    actions: z
      .array(
        z.string({ error: 'must be an action name' }).regex(DECLARED_NAME, {
          error: `must be one of ${shippedNames.join(', ')} or one of the tenant's declared actions`,
        }),
        { error: 'must be a list of action names' },
      )
      .min(1, 'must name at least one action')
      .refine((actions) => new Set(actions).size === actions.length, 'must not repeat an action'),
    grants: z
      .record(
        z.string(),
        z
          .array(z.string({ error: 'must be a string' }), { error: 'must be a list of values' })
          .min(1, 'must name at least one value; leave the grant out instead')
          .max(50, 'must name at most 50 values')
          .refine((values) => new Set(values).size === values.length, 'must not repeat a value'),
      )
      .default({}),
  })
  .superRefine((value, ctx) => {
    if (!Array.isArray(value.actions)) return;
    const shipped = value.actions.map((name) => findAction(name));
    // A declared action's grants are the tenant's to say: checked when the key is issued (keyRefusal).
    if (shipped.some((action) => action === undefined)) return;
    for (const issue of grantIssues(shipped as ActionModule[], value.grants))
      ctx.addIssue({ code: 'custom', ...issue });
  });

/**
 * A key's actions and grants against the tenant's actions (the shipped ones and its own
 * definitions), as the request body's refusal words them; none when they hold.
 */
export function keyRefusal(
  actions: readonly ActionModule[],
  input: Pick<z.infer<typeof agentKeyInput>, 'actions' | 'grants'>,
): Refusal | undefined {
  const chosen = input.actions.map((name) => actions.find((action) => action.name === name));
  const known = actions.map((action) => action.name).join(', ');
  const issues = [
    ...chosen.flatMap((action, index) =>
      action ? [] : [{ path: ['actions', index], message: `must be one of ${known}` }],
    ),
    ...grantIssues(
      chosen.flatMap((action) => action ?? []),
      input.grants,
    ),
  ].map(({ path, message }) => ({
    field: path.join('.'),
    code: 'invalid_value',
    expected: message.replace(/^must be /, ''),
    received: 'a value this tenant does not have',
    message: `"${path.join('.')}" ${message}.`,
  }));
  return issues.length === 0 ? undefined : new Refusal('invalid_agent_key', KEY_INVALID, { issues });
}

/** The refusal's words, as the request body's (lib/admin/agent-key-requests.ts). */
export const KEY_INVALID =
  'The agent key is not valid: send {"name": …, "actions": [...], "grants": {"<grant>": [...]}} with grants the ' +
  'chosen actions read.';

export type AgentKeyInput = z.input<typeof agentKeyInput>;

/** A rotation: how many minutes the old key keeps working beside the new one (0 ends it at once). */
export const rotationInput = z.strictObject({
  overlapMinutes: z
    .int({ error: 'must be a whole number of minutes' })
    .min(0, 'must be at least 0')
    .max(MAX_OVERLAP_MINUTES, `must be at most ${MAX_OVERLAP_MINUTES} (a week)`),
});

export type RotationInput = z.infer<typeof rotationInput>;

export type AgentKeyState = 'active' | 'expiring' | 'expired' | 'revoked';

/** What a key is at `now`: revoked wins; a rotated key is expiring until its overlap ends, then expired. */
export function keyState(key: Pick<AgentKey, 'revokedAt' | 'expiresAt'>, now: Date): AgentKeyState {
  if (key.revokedAt) return 'revoked';
  if (key.expiresAt) return key.expiresAt > now ? 'expiring' : 'expired';
  return 'active';
}

/** A key as the admin API shows it: never its hash. */
export function agentKeyView(key: AgentKey, now: Date) {
  return {
    id: key.id,
    tenantId: key.tenantId,
    agentName: key.agentName,
    keyPrefix: key.keyPrefix,
    actions: key.allowedActions,
    grants: key.grants,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
    expiresAt: key.expiresAt,
    replacedById: key.replacedById,
    state: keyState(key, now),
  };
}

export type AgentKeyView = ReturnType<typeof agentKeyView>;

/** The tenant's keys, by agent name, newest first within a name. */
export async function listTenantAgentKeys(db: Database, tenantId: string, now = new Date()): Promise<AgentKeyView[]> {
  const rows = await db
    .select()
    .from(agentKeys)
    .where(eq(agentKeys.tenantId, tenantId))
    .orderBy(asc(agentKeys.agentName), asc(agentKeys.createdAt));
  return rows
    .map((row) => agentKeyView(row, now))
    .sort((a, b) => a.agentName.localeCompare(b.agentName) || b.createdAt.getTime() - a.createdAt.getTime());
}

type NewKey = Pick<AgentKey, 'tenantId' | 'agentName' | 'allowedActions' | 'grants' | 'onBehalfOfUserId'>;

/** Inserts a fresh key in the caller's transaction; the plaintext exists only in the answer. */
export async function insertAgentKey(tx: Database, values: NewKey, now: Date): Promise<{ row: AgentKey; key: string }> {
  const { key, hash, prefix } = generateAgentKey();
  const [row] = await tx
    .insert(agentKeys)
    .values({ ...values, id: newId('key'), keyHash: hash, keyPrefix: prefix, createdAt: now })
    .returning();
  return { row: row!, key };
}

/** Issues a key in the tenant (audited `agent_key.created`); undefined when there is no such tenant. */
export async function issueAgentKey(
  db: Database,
  tenantId: string,
  actor: Actor,
  input: z.infer<typeof agentKeyInput>,
  now = new Date(),
) {
  const refused = keyRefusal(await tenantActions(db, tenantId), input);
  if (refused) throw refused;
  return changeTransaction(db, async (tx, announce) => {
    const [tenant] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
    if (!tenant) return undefined;
    const { row, key } = await insertAgentKey(
      tx,
      { tenantId, agentName: input.name, allowedActions: input.actions, grants: input.grants, onBehalfOfUserId: null },
      now,
    );
    await announce({ kind: 'agent_key', tenantId, keyId: row.id });
    await recordStateChange(tx, {
      tenantId,
      type: 'agent_key.created',
      actor,
      data: { key: row.id, agent: row.agentName, actions: row.allowedActions.join(',') },
      occurredAt: now,
      outbox: false,
    });
    return { agentKey: agentKeyView(row, now), key };
  });
}

/** A key of this tenant, locked for the change; undefined when the tenant has no key with that id. */
async function lockedKey(tx: Database, tenantId: string | undefined, keyId: string) {
  const [row] = await tx
    .select()
    .from(agentKeys)
    .where(
      tenantId === undefined ? eq(agentKeys.id, keyId) : and(eq(agentKeys.id, keyId), eq(agentKeys.tenantId, tenantId)),
    )
    .for('update');
  return row;
}

const conflict = (key: ErrorKey, message: string) => new Refusal(key, message);

/** What a revocation stops: the one key, or the agent (every key of its name in the tenant that still works). */
export const REVOCATION_SCOPES = ['key', 'agent'] as const;
export type RevocationScope = (typeof REVOCATION_SCOPES)[number];

export const revocationInput = z.strictObject({
  scope: z.enum(REVOCATION_SCOPES, { error: 'must be "key" or "agent"' }).optional(),
});
export type RevocationInput = z.infer<typeof revocationInput>;

/**
 * The key revoked, every key this revocation revoked, and the agent's keys that still work afterwards (and until when:
 * `expiresAt`, null for no end).
 */
export type Revocation = { agentKey: AgentKeyView; revoked: AgentKeyView[]; stillWorking: AgentKeyView[] };

const stillWorks = (key: AgentKey, now: Date) => {
  const state = keyState(key, now);
  return state === 'active' || state === 'expiring';
};

/**
 * Every key of an agent (its name in the tenant), locked for the change, by id. Locked again until
 * no new key appears: a rotation that committed while we waited for a lock added a key the first
 * read could not see, and with every key locked, no further rotation (which locks the key it
 * replaces) can add one before we commit.
 */
async function lockedAgentKeys(tx: Database, tenantId: string, agentName: string): Promise<AgentKey[]> {
  let seen = '';
  for (;;) {
    const rows = await tx
      .select()
      .from(agentKeys)
      .where(and(eq(agentKeys.tenantId, tenantId), eq(agentKeys.agentName, agentName)))
      .orderBy(asc(agentKeys.id))
      .for('update');
    const ids = rows.map((row) => row.id).join(',');
    if (ids === seen) return rows;
    seen = ids;
  }
}

/**
 * Revokes a key at once, or with `scope: 'agent'` every key of its agent that still works (each
 * audited `agent_key.revoked`, in one transaction): the next request with a revoked key is a 401.
 * A key rotated away and still in its overlap may be revoked too, to end the overlap early. The
 * answer says which of the agent's keys still work, and until when, so revoking the newest key
 * after a rotation never leaves the old one working unsaid. `tenantId` undefined is the CLI's
 * revocation by id alone. Undefined when there is no such key; 409 `already_revoked` (one key) or
 * `agent_already_stopped` (the agent) when there is nothing left to revoke.
 */
export async function revokeAgentKeys(
  db: Database,
  tenantId: string | undefined,
  actor: Actor,
  keyId: string,
  scope: RevocationScope = 'key',
  now = new Date(),
): Promise<Revocation | undefined> {
  return changeTransaction(db, async (tx, announce) => {
    const [target] = await tx
      .select()
      .from(agentKeys)
      .where(
        tenantId === undefined
          ? eq(agentKeys.id, keyId)
          : and(eq(agentKeys.id, keyId), eq(agentKeys.tenantId, tenantId)),
      );
    if (!target) return undefined;
    const keys = await lockedAgentKeys(tx, target.tenantId, target.agentName);
    const current = keys.find((key) => key.id === keyId)!;
    const toRevoke =
      scope === 'key'
        ? [current].filter((key) => !key.revokedAt)
        : keys.filter((key) => !key.revokedAt && (key.id === keyId || stillWorks(key, now)));
    if (toRevoke.length === 0) {
      throw scope === 'key'
        ? conflict('already_revoked', 'This agent key is already revoked.')
        : conflict(
            'agent_already_stopped',
            `No key of ${target.agentName} works any more; there is nothing left to revoke.`,
          );
    }
    const revoked: AgentKey[] = [];
    for (const key of toRevoke) {
      const [row] = await tx.update(agentKeys).set({ revokedAt: now }).where(eq(agentKeys.id, key.id)).returning();
      revoked.push(row!);
      await announce({ kind: 'agent_key', tenantId: row!.tenantId, keyId: row!.id });
      await recordStateChange(tx, {
        tenantId: row!.tenantId,
        type: 'agent_key.revoked',
        actor,
        data: { key: row!.id, agent: row!.agentName },
        occurredAt: now,
        outbox: false,
      });
    }
    const after = keys.map((key) => revoked.find((row) => row.id === key.id) ?? key);
    return {
      agentKey: agentKeyView(after.find((key) => key.id === keyId)!, now),
      revoked: revoked.map((row) => agentKeyView(row, now)),
      stillWorking: after.filter((key) => stillWorks(key, now)).map((key) => agentKeyView(key, now)),
    };
  });
}

/** Revokes one key (the CLI, and callers that need only the key): `revokeAgentKeys` with scope `key`. */
export async function revokeKey(
  db: Database,
  tenantId: string | undefined,
  actor: Actor,
  keyId: string,
  now = new Date(),
): Promise<AgentKeyView | undefined> {
  return (await revokeAgentKeys(db, tenantId, actor, keyId, 'key', now))?.agentKey;
}

/**
 * Rotates a key (audited `agent_key.rotated`): a new key with the same agent name, actions,
 * grants and principal; the old one keeps working until now + `overlapMinutes`, then is refused
 * like a revoked key. Its open proposals stay decidable (rotation is not revocation). Undefined
 * when the tenant has no such key; 409 when it is revoked or already rotated.
 */
export async function rotateAgentKey(
  db: Database,
  tenantId: string,
  actor: Actor,
  keyId: string,
  input: RotationInput,
  now = new Date(),
) {
  return changeTransaction(db, async (tx, announce) => {
    const old = await lockedKey(tx, tenantId, keyId);
    if (!old) return undefined;
    if (old.revokedAt)
      throw conflict('already_revoked', 'A revoked agent key cannot be rotated; issue a new key instead.');
    if (old.replacedById)
      throw conflict('already_rotated', 'This agent key was already rotated; rotate its replacement instead.');
    const { row, key } = await insertAgentKey(
      tx,
      {
        tenantId,
        agentName: old.agentName,
        allowedActions: old.allowedActions,
        grants: old.grants,
        onBehalfOfUserId: old.onBehalfOfUserId,
      },
      now,
    );
    const expiresAt = new Date(now.getTime() + input.overlapMinutes * 60_000);
    await tx.update(agentKeys).set({ expiresAt, replacedById: row.id }).where(eq(agentKeys.id, old.id));
    await announce({ kind: 'agent_key', tenantId, keyId: old.id });
    await announce({ kind: 'agent_key', tenantId, keyId: row.id });
    await recordStateChange(tx, {
      tenantId,
      type: 'agent_key.rotated',
      actor,
      data: {
        key: old.id,
        replacedBy: row.id,
        agent: old.agentName,
        overlapMinutes: input.overlapMinutes,
        expiresAt: expiresAt.toISOString(),
      },
      occurredAt: now,
      outbox: false,
    });
    return { agentKey: agentKeyView(row, now), key };
  });
}
