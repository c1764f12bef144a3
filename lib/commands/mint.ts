import { SignJWT } from 'jose';
import type { Database } from '@/db';
import { commands, type NormalizedPayload, type Proposal } from '@/db/schema';
import { tenantAction } from '@/lib/definitions/catalog';
import { recordStateChange } from '@/lib/events/record';
import { newId } from '@/lib/ids';
import { quorumShortfall } from '@/lib/quorum/quorum';
import { commandKeys, type SigningKey, signingIssuer } from '@/lib/signing/keys';
import { wakeDispatchOnCommit } from './wake';

export const COMMAND_TYP = 'countersign-command+jwt';
/** A command lives at most this long (docs/design.md §7: ≤ 5 minutes). */
export const COMMAND_LIFETIME_SECONDS = 300;

export const audienceFor = (scope: string) => `executor:${scope}`;
export const idempotencyKeyFor = (proposalId: string) => `cs.${proposalId}`;
export const commandIssuer = signingIssuer;

/** The claims of a command (the JWS payload): the normalized payload's fields, signed. */
export type CommandClaims = Pick<NormalizedPayload, 'action' | 'contractVersion' | 'args' | 'evidenceRefs'> & {
  iss: string;
  aud: string;
  sub: string;
  jti: string;
  iat: number;
  nbf: number;
  exp: number;
  tenant: string;
  payloadHash: string;
  idempotencyKey: string;
};

export type MintedCommand = { id: string; scope: string; jws: string; idempotencyKey: string; expiresAt: Date };

/** Minting refused: fewer current holders of the rule's role approved than it needs. */
export class QuorumLapsed extends Error {
  constructor(proposalId: string, short: { standing: number; required: number }) {
    super(
      `refusing to mint a command for ${proposalId}: ${short.standing} of ${short.required} approvers still ` +
        `hold the rule's role`,
    );
    this.name = 'QuorumLapsed';
  }
}

/** Signs claims as a command: compact JWS, EdDSA, header {alg, kid, typ}. */
export function signCommand(claims: CommandClaims, key: SigningKey): Promise<string> {
  return new SignJWT({ ...claims }).setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: COMMAND_TYP }).sign(key.key);
}

/**
 * Mints the one command of a proposal that has just become `approved`: the `commands` row, the
 * `command.minted` outbox row the dispatcher delivers, and the audit event. Call it inside the
 * transaction that approved the proposal, so an approval never exists without its command; the
 * commit wakes the dispatcher (lib/commands/wake.ts).
 */
export async function mintCommand(
  tx: Database,
  proposal: Proposal,
  now: Date,
  key?: SigningKey,
): Promise<MintedCommand> {
  const action = await tenantAction(tx, proposal.tenantId, proposal.action);
  if (!action) throw new Error(`cannot mint a command for unknown action ${proposal.action}`);
  // Never a command without the approvers the rule needs, each holding its role now (docs/design.md §6).
  const short = await quorumShortfall(tx, proposal);
  if (short) throw new QuorumLapsed(proposal.id, short);
  const signing = key ?? (await commandKeys()).signing;
  const { payload } = proposal;
  const id = newId('cmd');
  const iat = Math.floor(now.getTime() / 1000);
  const exp = iat + COMMAND_LIFETIME_SECONDS;
  const idempotencyKey = idempotencyKeyFor(proposal.id);
  const claims: CommandClaims = {
    iss: commandIssuer(),
    aud: audienceFor(action.scope),
    sub: proposal.id,
    jti: id,
    iat,
    nbf: iat,
    exp,
    tenant: proposal.tenantId,
    action: payload.action,
    contractVersion: payload.contractVersion,
    args: payload.args,
    evidenceRefs: payload.evidenceRefs,
    payloadHash: proposal.payloadHash,
    idempotencyKey,
  };
  const jws = await signCommand(claims, signing);
  const expiresAt = new Date(exp * 1000);
  await tx.insert(commands).values({
    id,
    tenantId: proposal.tenantId,
    proposalId: proposal.id,
    scope: action.scope,
    kid: signing.kid,
    jws,
    idempotencyKey,
    expiresAt,
    createdAt: now,
  });
  await recordStateChange(tx, {
    tenantId: proposal.tenantId,
    type: 'command.minted',
    actor: { type: 'system', id: 'countersign' },
    proposalId: proposal.id,
    payloadHash: proposal.payloadHash,
    reasonCode: 'approved',
    contractVersion: proposal.contractVersion,
    data: { commandId: id, scope: action.scope, kid: signing.kid, expiresAt: expiresAt.toISOString() },
    occurredAt: now,
    outbox: { topic: 'command.minted', body: { commandId: id, scope: action.scope } },
  });
  await wakeDispatchOnCommit(tx);
  return { id, scope: action.scope, jws, idempotencyKey, expiresAt };
}
