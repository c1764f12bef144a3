import { describe, expect, it } from 'vitest';
import { pageContentSecurityPolicy } from '@/lib/http/csp';
import { sessionCookies, usesSecureCookies } from './cookies';

describe('cookies over HTTPS', () => {
  it('are __Host- prefixed, Secure, host-only and path / when APP_URL is https', () => {
    const cookies = sessionCookies({ APP_URL: 'https://cs.example.com' });
    expect(usesSecureCookies({ APP_URL: 'https://cs.example.com' })).toBe(true);
    expect(cookies).toBeDefined();
    for (const cookie of Object.values(cookies ?? {})) {
      expect(cookie.name).toMatch(/^__Host-/);
      expect(cookie.options).toMatchObject({ secure: true, path: '/', httpOnly: true });
      expect(cookie.options).not.toHaveProperty('domain');
    }
  });

  it('keep next-auth defaults over plain HTTP (local demo)', () => {
    expect(usesSecureCookies({ APP_URL: 'http://127.0.0.1:3000' })).toBe(false);
    expect(sessionCookies({ APP_URL: undefined })).toBeUndefined();
  });
});

describe('page content security policy', () => {
  it('allows scripts only by nonce, never inline', () => {
    const policy = pageContentSecurityPolicy('abc123', false);
    const scripts = policy.split('; ').find((d) => d.startsWith('script-src'));
    expect(scripts).toBe("script-src 'self' 'nonce-abc123' 'strict-dynamic'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
  });
});
