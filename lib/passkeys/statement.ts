import { randomBytes } from 'node:crypto';
import type { Proposal } from '@/db/schema';
import { canonicalJson, sha256Hex } from '@/lib/payload-hash';
import type { DecisionStatement } from './requests';

/*
 * A decision's statement (lib/passkeys/requests.ts): its RFC 8785 text's SHA-256 is the WebAuthn
 * challenge, so the authenticator's signature covers it (docs/passkeys.md).
 */

/** How long a decision's challenge may be answered. */
export const STATEMENT_LIFETIME_MS = 2 * 60_000;

/** A fresh statement for `userId` deciding `proposal` now. */
export function buildStatement(
  proposal: Pick<Proposal, 'id' | 'tenantId' | 'payloadHash' | 'parentId'>,
  userId: string,
  decision: 'approve' | 'reject',
  now: Date,
): DecisionStatement {
  return {
    proposalId: proposal.id,
    tenantId: proposal.tenantId,
    decision,
    payloadHash: proposal.payloadHash,
    revisionOf: proposal.parentId ?? null,
    userId,
    issuedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + STATEMENT_LIFETIME_MS).toISOString(),
    nonce: randomBytes(16).toString('base64url'),
  };
}

/** The WebAuthn challenge of a statement: base64url of SHA-256 over its RFC 8785 text. */
export function statementChallenge(statement: unknown): string {
  return Buffer.from(sha256Hex(canonicalJson(statement)), 'hex').toString('base64url');
}

/**
 * The fields of a statement that differ from the decision it is presented with (empty when it is
 * this decision): the offline verifier and the server ask the same question.
 */
export function statementMismatches(
  statement: DecisionStatement,
  decided: Omit<DecisionStatement, 'issuedAt' | 'expiresAt' | 'nonce' | 'decision' | 'payloadHash'> & {
    decision: string;
    payloadHash: string | null;
  },
): string[] {
  return (['proposalId', 'tenantId', 'decision', 'payloadHash', 'revisionOf', 'userId'] as const).filter(
    (field) => statement[field] !== decided[field],
  );
}
