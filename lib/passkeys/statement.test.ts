import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decisionStatementSchema } from './requests';
import { buildStatement, statementChallenge, statementMismatches } from './statement';

const proposal = { id: 'prp_1', tenantId: 'acme', payloadHash: `sha256:${'ab'.repeat(32)}`, parentId: 'prp_0' };
const now = new Date('2026-12-02T14:00:00.000Z');

describe('the decision statement', () => {
  it('names the proposal, tenant, decision, stored hash, revision and person, for two minutes, with a fresh nonce', () => {
    const statement = buildStatement(proposal, 'usr_1', 'approve', now);
    expect(statement).toEqual({
      proposalId: 'prp_1',
      tenantId: 'acme',
      decision: 'approve',
      payloadHash: proposal.payloadHash,
      revisionOf: 'prp_0',
      userId: 'usr_1',
      issuedAt: '2026-12-02T14:00:00.000Z',
      expiresAt: '2026-12-02T14:02:00.000Z',
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(decisionStatementSchema.parse(statement)).toEqual(statement);
    expect(buildStatement({ ...proposal, parentId: null }, 'usr_1', 'reject', now)).toMatchObject({
      revisionOf: null,
      decision: 'reject',
    });
    expect(buildStatement(proposal, 'usr_1', 'approve', now).nonce).not.toBe(statement.nonce);
  });

  it('its challenge is base64url of SHA-256 over its RFC 8785 text, whatever order its keys came in', () => {
    const statement = buildStatement(proposal, 'usr_1', 'approve', now);
    const text = `{"decision":"approve","expiresAt":"2026-12-02T14:02:00.000Z","issuedAt":"2026-12-02T14:00:00.000Z","nonce":"${statement.nonce}","payloadHash":"${proposal.payloadHash}","proposalId":"prp_1","revisionOf":"prp_0","tenantId":"acme","userId":"usr_1"}`;
    expect(statementChallenge(statement)).toBe(createHash('sha256').update(text).digest('base64url'));
    const reordered = Object.fromEntries(Object.entries(statement).reverse());
    expect(statementChallenge(reordered)).toBe(statementChallenge(statement));
    expect(statementChallenge({ ...statement, decision: 'reject' })).not.toBe(statementChallenge(statement));
  });

  it('names each field that differs from the decision it is presented with', () => {
    const statement = buildStatement(proposal, 'usr_1', 'approve', now);
    const decided = {
      proposalId: 'prp_1',
      tenantId: 'acme',
      decision: 'approve',
      payloadHash: proposal.payloadHash,
      revisionOf: 'prp_0',
      userId: 'usr_1',
    };
    expect(statementMismatches(statement, decided)).toEqual([]);
    expect(statementMismatches(statement, { ...decided, proposalId: 'prp_2', decision: 'reject' })).toEqual([
      'proposalId',
      'decision',
    ]);
    expect(
      statementMismatches(statement, {
        ...decided,
        payloadHash: null,
        revisionOf: null,
        userId: 'usr_2',
        tenantId: 'globex',
      }),
    ).toEqual(['tenantId', 'payloadHash', 'revisionOf', 'userId']);
  });
});
