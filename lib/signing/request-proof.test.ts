import { compactVerify, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { commandKeys, generateSigningJwk, loadCommandKeys, signingIssuer } from './keys';

import { bodySha256, REQUEST_PROOF_HEADER, REQUEST_PROOF_TYP, signRequest } from './request-proof';

const url = 'https://svc.example/actions/refund/execute';

describe('request proofs', () => {
  it('signs the URL, the method, the body hash and a fresh jti for 60 s, typed as a request proof', async () => {
    const keys = await loadCommandKeys([await generateSigningJwk()]);
    const now = new Date('2026-12-07T10:00:00Z');
    const proof = await signRequest({ url, method: 'POST', body: 'a.b.c' }, keys.signing, 'https://cs.example', now);
    expect(REQUEST_PROOF_HEADER).toBe('Countersign-Signature');
    expect(decodeProtectedHeader(proof)).toEqual({ alg: 'EdDSA', kid: keys.signing.kid, typ: REQUEST_PROOF_TYP });
    const iat = now.getTime() / 1000;
    const claims = decodeJwt(proof);
    expect(claims).toEqual({
      iss: 'https://cs.example',
      aud: url,
      htm: 'POST',
      bodySha256: bodySha256('a.b.c'),
      iat,
      exp: iat + 60,
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    const again = decodeJwt(await signRequest({ url, method: 'POST', body: 'a.b.c' }, keys.signing, 'x', now));
    expect(again.jti).not.toBe(claims.jti);
    await expect(compactVerify(proof, keys.verification.get(keys.signing.kid)!)).resolves.toBeTruthy();
  });

  it('hashes the exact body bytes, base64url without padding (the empty string for a GET)', () => {
    // SHA-256 of "" and of "abc" (FIPS 180-2 test vectors), in base64url.
    expect(bodySha256('')).toBe('47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU');
    expect(bodySha256('abc')).toBe('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
  });

  it("signs with the process's command key and issuer by default", async () => {
    const keys = await commandKeys();
    const proof = await signRequest({ url: `${url}/cmd_1`, method: 'GET', body: '' });
    expect(decodeProtectedHeader(proof).kid).toBe(keys.signing.kid);
    expect(decodeJwt(proof)).toMatchObject({ iss: signingIssuer(), aud: `${url}/cmd_1`, htm: 'GET' });
  });
});
