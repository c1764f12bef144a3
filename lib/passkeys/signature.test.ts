import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkSignedStatement, type SignedEvidence } from './signature';

/**
 * A recorded assertion: an ES256 authenticator (test/passkey-authenticator.ts) signed this
 * statement once for https://countersign.example; the verifier must accept exactly these bytes.
 */
const recorded = JSON.parse(readFileSync('test/vectors/passkey-assertion.json', 'utf8')) as SignedEvidence;

const flip = (value: string, index: number) => {
  const bytes = Buffer.from(value, 'base64url');
  bytes[index] = bytes[index]! ^ 0x01;
  return bytes.toString('base64url');
};
const clientData = (change: (json: Record<string, unknown>) => Record<string, unknown>) =>
  Buffer.from(JSON.stringify(change(JSON.parse(Buffer.from(recorded.clientData, 'base64url').toString())))).toString(
    'base64url',
  );

describe('checking a signed statement offline', () => {
  it('accepts the recorded assertion', async () => {
    const verdict = await checkSignedStatement(recorded);
    expect(verdict).toMatchObject({
      ok: true,
      origin: 'https://countersign.example',
      statement: { proposalId: 'prp_0000000000000000000a', decision: 'approve' },
    });
  });

  it.each([
    [
      'a statement byte',
      { statement: recorded.statement.replace('"approve"', '"reject"') },
      "challenge is not the statement's hash",
    ],
    [
      'the statement out of RFC 8785 order',
      {
        statement: JSON.stringify(
          Object.fromEntries(Object.entries(JSON.parse(recorded.statement) as object).reverse()),
        ),
      },
      'RFC 8785',
    ],
    ['a client data byte', { clientData: flip(recorded.clientData, 40) }, ''],
    [
      'the client data type',
      { clientData: clientData((json) => ({ ...json, type: 'webauthn.create' })) },
      'not "webauthn.get"',
    ],
    [
      'the origin',
      { clientData: clientData((json) => ({ ...json, origin: 'https://evil.example' })) },
      'is not of the relying party',
    ],
    ['the relying party (a parent domain the origin would pass)', { rpId: 'example' }, 'another relying party'],
    ['the relying party (another host)', { rpId: 'evil.example' }, 'is not of the relying party'],
    [
      'an authenticator data byte (the counter)',
      { authenticatorData: flip(recorded.authenticatorData, 36) },
      'signature does not verify',
    ],
    [
      'the user-verified flag',
      {
        authenticatorData: Buffer.from(
          Buffer.from(recorded.authenticatorData, 'base64url').map((byte, index) =>
            index === 32 ? byte & ~0x04 : byte,
          ),
        ).toString('base64url'),
      },
      'did not verify the user',
    ],
    ['a signature byte', { signature: flip(recorded.signature, 30) }, 'signature does not verify'],
    ['another public key', { publicKey: flip(recorded.publicKey, 20) }, 'signature does not verify'],
  ])('refuses %s changed', async (_what, change: Partial<SignedEvidence>, reason) => {
    const verdict = await checkSignedStatement({ ...recorded, ...change });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toContain(reason);
  });
});
