import { describe, expect, it } from 'vitest';
import { Refusal } from '@/lib/errors/refusal';
import { assertNoForeignOrigin, assertSameOrigin, publicOrigin, targetedOrigin } from './origin';

// Next reports request.url as localhost whatever address the browser used: the Host header decides.
const post = (headers: Record<string, string>) =>
  new Request('http://localhost:3000/api/v1/proposals/prp_x/decisions', { method: 'POST', headers });
type Settings = { APP_URL: string | undefined; TRUST_PROXY: boolean };
const direct: Settings = { APP_URL: undefined, TRUST_PROXY: false };
const proxied: Settings = { APP_URL: undefined, TRUST_PROXY: true };
const configured: Settings = { APP_URL: 'https://countersign.example.com', TRUST_PROXY: false };

function refusal(request: Request, settings: Settings, check = assertSameOrigin): string | undefined {
  try {
    check(request, settings);
    return undefined;
  } catch (error) {
    return error instanceof Refusal ? error.code : 'unexpected';
  }
}

describe('same-origin check for dashboard mutations', () => {
  it.each([
    [
      '127.0.0.1 through its own address',
      direct,
      { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' },
      undefined,
    ],
    ['localhost', direct, { host: 'localhost:3000', origin: 'http://localhost:3000' }, undefined],
    ['the machine name', direct, { host: 'ops-box:3000', origin: 'http://ops-box:3000' }, undefined],
    ['an IPv6 address', direct, { host: '[::1]:3000', origin: 'http://[::1]:3000' }, undefined],
    ['a foreign origin', direct, { host: '127.0.0.1:3000', origin: 'http://evil.test' }, 'cross_origin'],
    ['a missing Origin', direct, { host: '127.0.0.1:3000' }, 'cross_origin'],
    ['Origin "null"', direct, { host: '127.0.0.1:3000', origin: 'null' }, 'cross_origin'],
    [
      'another port on the same host',
      direct,
      { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3001' },
      'cross_origin',
    ],
    [
      'https origin for a plain-http server',
      direct,
      { host: '127.0.0.1:3000', origin: 'https://127.0.0.1:3000' },
      'cross_origin',
    ],
    [
      'forwarded host without TRUST_PROXY',
      direct,
      {
        host: 'internal:3000',
        'x-forwarded-host': 'evil.test',
        'x-forwarded-proto': 'https',
        origin: 'https://evil.test',
      },
      'cross_origin',
    ],
    [
      'forwarded host with TRUST_PROXY',
      proxied,
      {
        host: 'internal:3000',
        'x-forwarded-host': 'cs.example.com',
        'x-forwarded-proto': 'https',
        origin: 'https://cs.example.com',
      },
      undefined,
    ],
    [
      'TRUST_PROXY with a foreign origin',
      proxied,
      {
        host: 'internal:3000',
        'x-forwarded-host': 'cs.example.com',
        'x-forwarded-proto': 'https',
        origin: 'https://evil.test',
      },
      'cross_origin',
    ],
    [
      'APP_URL behind a proxy that rewrites Host',
      configured,
      { host: 'internal:3000', origin: 'https://countersign.example.com' },
      undefined,
    ],
    ['a Host header smuggling a path', direct, { host: 'evil.test/x', origin: 'http://evil.test' }, 'cross_origin'],
    ['a Host header with credentials', direct, { host: 'a@evil.test', origin: 'http://evil.test' }, 'cross_origin'],
  ])('%s', (_label, settings, headers, expected) => {
    expect(refusal(post(headers), settings)).toBe(expected);
  });

  it('uses the forwarded scheme and host only when the proxy is trusted', () => {
    const request = post({ host: 'internal:3000', 'x-forwarded-host': 'cs.example.com', 'x-forwarded-proto': 'https' });
    expect(targetedOrigin(request, direct)).toBe('http://internal:3000');
    expect(targetedOrigin(request, proxied)).toBe('https://cs.example.com');
    expect(publicOrigin(request, configured)).toBe('https://countersign.example.com');
    expect(publicOrigin(post({ host: '127.0.0.1:3000' }), direct)).toBe('http://127.0.0.1:3000');
  });
});

describe('Origin check for programs (MCP)', () => {
  it.each([
    ['no Origin (not a browser)', { host: '127.0.0.1:3000' }, undefined],
    ['its own origin', { host: '127.0.0.1:3000', origin: 'http://127.0.0.1:3000' }, undefined],
    ['a foreign origin', { host: '127.0.0.1:3000', origin: 'http://evil.example.com' }, 'cross_origin'],
    ['Origin "null"', { host: '127.0.0.1:3000', origin: 'null' }, 'cross_origin'],
    ['an empty Origin', { host: '127.0.0.1:3000', origin: '' }, 'cross_origin'],
  ])('%s', (_label, headers, expected) => {
    expect(refusal(post(headers), direct, assertNoForeignOrigin)).toBe(expected);
  });
});
