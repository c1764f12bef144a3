import { NextResponse, type NextRequest } from 'next/server';

const SESSION_COOKIES = ['authjs.session-token', '__Secure-authjs.session-token'];

/**
 * Only redirects: a request without a session cookie goes to sign-in and comes back to the page
 * it asked for. It verifies nothing: every page, server action and route checks the session and
 * the role again on its own (an invalid cookie is caught there, with the same redirect).
 */
export function proxy(request: NextRequest) {
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return NextResponse.next();
  const signIn = new URL('/signin', request.nextUrl.origin);
  signIn.searchParams.set('callbackUrl', `${request.nextUrl.pathname}${request.nextUrl.search}`);
  return NextResponse.redirect(signIn);
}

export const config = {
  // Pages only: API routes answer 401 themselves; sign-in, health and static files stay open.
  matcher: ['/((?!api/|signin|_next/|favicon.ico|robots.txt|\\.well-known/).*)'],
};
