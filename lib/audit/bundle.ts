import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import {
  type AuditEvent,
  actionDefinitions,
  auditEvents,
  commands,
  decisions,
  executions,
  proposals,
  users,
} from '@/db/schema';
import { canonicalJson } from '@/lib/payload-hash';
import type { CommandKeys } from '@/lib/signing/keys';
import { DECISION_TYPES, storyOf } from './bundle-story';
import { BUNDLE_FORMAT, type EvidenceBundle } from './bundle-verify';
import { currentCheckpoint } from './checkpoint-store';
import { inclusionProofFile } from './tlog/proof-api';

/**
 * Everything an auditor needs to check one proposal offline (docs/design.md §8): the canonical payload
 * and its hash, the raw candidate, gates, decisions with the names their events recorded, the signed
 * command and the public keys that verify it, the receipt, the proposal's audit events and the
 * registrations of the passkeys that signed its decisions, and for a declared action the definition it
 * was gated by with the event that published it — only those: no other proposal's events —
 * each with an inclusion proof against the tenant's checkpoint (a C2SP signed note) made now.
 * Evidence text is not included.
 * Undefined when the tenant has no such proposal.
 */
export async function buildEvidenceBundle(
  db: Database,
  tenantId: string,
  proposalId: string,
  keys: CommandKeys,
  now = new Date(),
): Promise<EvidenceBundle | undefined> {
  const [proposal] = await db
    .select()
    .from(proposals)
    .where(and(eq(proposals.id, proposalId), eq(proposals.tenantId, tenantId)));
  if (!proposal) return undefined;
  // Every event committed so far is chained (here) and in the tree the checkpoint signs.
  const head = await currentCheckpoint(db, tenantId, keys, now);
  const decided = await db
    .select({
      decision: decisions.decision,
      payloadHash: decisions.payloadHash,
      userId: decisions.userId,
      name: users.name,
      reason: decisions.reason,
      createdAt: decisions.createdAt,
      withdrawnAt: decisions.withdrawnAt,
    })
    .from(decisions)
    .innerJoin(users, eq(users.id, decisions.userId))
    .where(eq(decisions.proposalId, proposal.id))
    .orderBy(asc(decisions.createdAt));
  const [command] = await db.select().from(commands).where(eq(commands.proposalId, proposal.id));
  const [execution] = command ? await db.select().from(executions).where(eq(executions.commandId, command.id)) : [];
  const events = await db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.proposalId, proposal.id)))
    .orderBy(asc(auditEvents.seq));
  const recordedNames = new Map(
    events.filter((row) => DECISION_TYPES.has(row.type) && row.actorName).map((row) => [row.actorId, row.actorName!]),
  );
  // In the order of their events, which a verifier holds them to.
  const order = storyOf(events).decisions;
  const rank = (row: (typeof decided)[number]) =>
    order.findIndex((event) => event.userId === row.userId && event.decision === row.decision);
  decided.sort((a, b) => rank(a) - rank(b));
  // The registration of each passkey that signed a decision: it binds the key to the person.
  const credentials = [
    ...new Set(
      events.flatMap((row) =>
        DECISION_TYPES.has(row.type) && typeof row.data.passkeyCredential === 'string'
          ? [row.data.passkeyCredential]
          : [],
      ),
    ),
  ];
  const registrations = credentials.length
    ? await db
        .select()
        .from(auditEvents)
        .where(
          and(
            eq(auditEvents.tenantId, tenantId),
            eq(auditEvents.type, 'passkey.registered'),
            inArray(sql<string>`${auditEvents.data}->>'credential'`, credentials),
          ),
        )
        .orderBy(asc(auditEvents.seq))
    : [];
  // A declared action: the definition it was gated by, and the event that published it.
  const version = proposal.definitionVersion;
  const [definition] =
    version === null
      ? []
      : await db
          .select({ document: actionDefinitions.document })
          .from(actionDefinitions)
          .where(
            and(
              eq(actionDefinitions.tenantId, tenantId),
              eq(actionDefinitions.name, proposal.action),
              eq(actionDefinitions.version, version),
            ),
          );
  const [published] =
    version === null
      ? []
      : await db
          .select()
          .from(auditEvents)
          .where(
            and(
              eq(auditEvents.tenantId, tenantId),
              eq(auditEvents.type, 'action.published'),
              sql`${auditEvents.data}->>'action' = ${proposal.action}`,
              sql`${auditEvents.data}->>'version' = ${String(version)}`,
            ),
          )
          .limit(1);
  const proven = (rows: readonly AuditEvent[]) =>
    Promise.all(
      rows.map(async (row) => ({
        ...asExported(row),
        inclusion: await inclusionProofFile(db, tenantId, row.seq, head.seq),
      })),
    );
  return {
    format: BUNDLE_FORMAT,
    generatedAt: now.toISOString(),
    tenant: tenantId,
    proposal: {
      id: proposal.id,
      status: proposal.status,
      statusReason: proposal.statusReason,
      action: proposal.action,
      contractVersion: proposal.contractVersion,
      agentName: proposal.agentName,
      requestId: proposal.requestId,
      parentId: proposal.parentId,
      risk: proposal.risk,
      routing: proposal.routing,
      facts: proposal.facts,
      createdAt: proposal.createdAt.toISOString(),
      expiresAt: proposal.expiresAt.toISOString(),
      decidedAt: proposal.decidedAt?.toISOString() ?? null,
    },
    payload: proposal.payload,
    canonicalPayload: canonicalJson(proposal.payload),
    payloadHash: proposal.payloadHash,
    rawCandidate: proposal.rawCandidate,
    gates: proposal.gates,
    // The name its event recorded, so a later rename does not make the bundle disagree with the chain.
    decisions: decided.map((row) => ({
      ...row,
      name: recordedNames.get(row.userId) ?? row.name,
      createdAt: row.createdAt.toISOString(),
      withdrawnAt: row.withdrawnAt?.toISOString() ?? null,
    })),
    command: command
      ? {
          id: command.id,
          jws: command.jws,
          kid: command.kid,
          scope: command.scope,
          idempotencyKey: command.idempotencyKey,
        }
      : null,
    keys: keys.jwks,
    execution: execution
      ? { status: execution.status, receipt: execution.receipt ?? null, errorCode: execution.errorCode }
      : null,
    events: await proven(events),
    checkpoint: head.note,
    passkeyRegistrations: await proven(registrations),
    definition:
      definition && published ? { document: definition.document, published: (await proven([published]))[0]! } : null,
  };
}

const asExported = (row: AuditEvent) => ({ ...row, occurredAt: new Date(row.occurredAt).toISOString() });
