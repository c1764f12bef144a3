import type { NextAuthConfig } from 'next-auth';
import { env, type Settings } from '@/lib/env';

/**
 * Over HTTPS (APP_URL https://…) every cookie is `__Host-`: Secure, host-only, path `/`, so
 * neither a sibling subdomain nor a plain-HTTP page can set or read it. Decided from the
 * configuration, not the request, so every reader agrees on the names.
 */
export function usesSecureCookies(settings: Pick<Settings, 'APP_URL'> = env()): boolean {
  return settings.APP_URL?.startsWith('https:') === true;
}

export const SESSION_COOKIE_NAMES = ['authjs.session-token', '__Host-authjs.session-token'];

export function sessionCookies(settings: Pick<Settings, 'APP_URL'> = env()): NextAuthConfig['cookies'] {
  if (!usesSecureCookies(settings)) return undefined;
  const options = { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: true };
  const shortLived = { ...options, maxAge: 15 * 60 };
  return {
    sessionToken: { name: '__Host-authjs.session-token', options },
    callbackUrl: { name: '__Host-authjs.callback-url', options },
    csrfToken: { name: '__Host-authjs.csrf-token', options },
    pkceCodeVerifier: { name: '__Host-authjs.pkce.code_verifier', options: shortLived },
    state: { name: '__Host-authjs.state', options: shortLived },
    nonce: { name: '__Host-authjs.nonce', options },
  };
}
