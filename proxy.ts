import { type NextRequest, NextResponse } from 'next/server';
import { SESSION_COOKIE_NAMES, usesSecureCookies } from '@/lib/auth/cookies';
import { env } from '@/lib/env';
import { pageContentSecurityPolicy, STRICT_TRANSPORT_SECURITY } from '@/lib/http/csp';

/** Pages anyone may open (the rest send a visitor without a session cookie to sign in). */
const PUBLIC_PAGES = new Set(['/signin']);
/** Invitation links (app/invite/[token]): opened by people who have no account, or no session, yet. */
const PUBLIC_PREFIXES = ['/invite/'];

const isPublic = (pathname: string) =>
  PUBLIC_PAGES.has(pathname) || PUBLIC_PREFIXES.some((prefix) => pathname.startsWith(prefix));

/**
 * For pages: a fresh script nonce and its Content-Security-Policy (Next puts the nonce on its own
 * scripts when it finds it in the request's policy), HSTS over HTTPS, and a redirect to sign-in
 * for a request without a session cookie. It verifies nothing: every page, server action and
 * route checks the session and the role again on its own.
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  if (!isPublic(pathname) && !SESSION_COOKIE_NAMES.some((name) => request.cookies.has(name))) {
    const signIn = new URL('/signin', request.nextUrl.origin);
    signIn.searchParams.set('callbackUrl', `${pathname}${search}`);
    return withTransportSecurity(NextResponse.redirect(signIn));
  }
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
  const policy = pageContentSecurityPolicy(nonce, env().NODE_ENV === 'development');
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('content-security-policy', policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('content-security-policy', policy);
  return withTransportSecurity(response);
}

function withTransportSecurity(response: NextResponse): NextResponse {
  if (usesSecureCookies()) response.headers.set('strict-transport-security', STRICT_TRANSPORT_SECURITY);
  return response;
}

export const config = {
  // Pages only: API routes answer 401 themselves; static files and well-known documents stay open.
  matcher: ['/((?!api/|_next/static|_next/image|\\.well-known/|[^/]+\\.(?:ico|png|svg|txt|webmanifest)$).*)'],
};
