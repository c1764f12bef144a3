import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Proposal } from '@/db/schema';
import { canonicalJson, sha256Hex } from '@/lib/payload-hash';

/** How long a decision's challenge may be answered (docs/passkeys.md). */
export const STATEMENT_LIFETIME_MS = 2 * 60_000;

/**
 * What a person signs with their passkey when they decide (docs/passkeys.md): this proposal, this
 * decision, the stored payload hash, the revision it replaced, who decides, and a window. Its
 * RFC 8785 text's SHA-256 is the WebAuthn challenge, so the authenticator's signature covers it.
 */
export const decisionStatementSchema = z.strictObject({
  proposalId: z.string().min(1).max(100),
  tenantId: z.string().min(1).max(100),
  decision: z.enum(['approve', 'reject']),
  payloadHash: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  revisionOf: z.string().min(1).max(100).nullable(),
  userId: z.string().min(1).max(100),
  issuedAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{22,64}$/),
});

export type DecisionStatement = z.infer<typeof decisionStatementSchema>;

/** A fresh statement for `userId` deciding `proposal` now. */
export function buildStatement(proposal: Pick<Proposal, 'id' | 'tenantId' | 'payloadHash' | 'parentId'>, userId: string, decision: 'approve' | 'reject', now: Date): DecisionStatement {
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
export function statementMismatches(statement: DecisionStatement, decided: { proposalId: string; tenantId: string; decision: string; payloadHash: string | null; userId: string }): string[] {
  return (['proposalId', 'tenantId', 'decision', 'payloadHash', 'userId'] as const).filter((field) => statement[field] !== decided[field]);
}
