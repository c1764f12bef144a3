import { describe, expect, it } from 'vitest';
import { hostProblem } from '@/lib/passkeys/relying-party';
import { passkeyHostProblem, relyingParty } from './relying-party';

const request = (host: string) => new Request(`http://${host}/api/v1/me/passkeys`, { headers: { host } });

describe('the relying party', () => {
  it("is APP_URL's host when set, whatever address the browser used", () => {
    expect(
      relyingParty(request('10.0.0.5:3000'), { APP_URL: 'https://approvals.example.com/', TRUST_PROXY: false }),
    ).toEqual({ id: 'approvals.example.com', origin: 'https://approvals.example.com', name: 'Countersign' });
  });

  it('is the targeted host without APP_URL', () => {
    expect(relyingParty(request('localhost:3440'), { APP_URL: undefined, TRUST_PROXY: false })).toEqual({
      id: 'localhost',
      origin: 'http://localhost:3440',
      name: 'Countersign',
    });
  });

  it('on an IP address, says passkeys need a host name and offers the same address on localhost', () => {
    expect(
      hostProblem(relyingParty(request('localhost:3440'), { APP_URL: undefined, TRUST_PROXY: false })),
    ).toBeUndefined();
    expect(
      hostProblem(relyingParty(request('127.0.0.1:3440'), { APP_URL: undefined, TRUST_PROXY: false })),
    ).toMatchObject({ code: 'passkey_host', useInstead: 'http://localhost:3440' });
    expect(
      hostProblem(relyingParty(request('[::1]:3440'), { APP_URL: undefined, TRUST_PROXY: false }))?.message,
    ).toContain('need a host name');
    expect(hostProblem(undefined)?.message).toContain('APP_URL');
  });

  it("with APP_URL set, an IP address or another host than APP_URL's is told where passkeys work", () => {
    const settings = { APP_URL: 'http://localhost:3440', TRUST_PROXY: false };
    expect(passkeyHostProblem(request('localhost:3440'), settings)).toBeUndefined();
    expect(passkeyHostProblem(request('127.0.0.1:3440'), settings)).toMatchObject({
      useInstead: 'http://localhost:3440',
    });
    expect(passkeyHostProblem(request('other.example:3440'), settings)).toMatchObject({
      useInstead: 'http://localhost:3440',
    });
    const sub = { APP_URL: 'https://example.com', TRUST_PROXY: false };
    expect(
      passkeyHostProblem(
        new Request('https://approvals.example.com/', { headers: { host: 'approvals.example.com' } }),
        sub,
      ),
    ).toBeUndefined();
  });
});
