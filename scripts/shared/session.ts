/**
 * Signs in without a browser through next-auth's own flow (GET csrf, POST the credentials
 * callback, docs/design.md §12) and answers the session cookie (`name=value`), or undefined when none came.
 */
export async function sessionCookie(
  appUrl: string,
  email: string,
  password: string,
  timeoutMs = 30_000,
): Promise<string | undefined> {
  const csrf = await fetch(`${appUrl}/api/auth/csrf`, { signal: AbortSignal.timeout(timeoutMs) });
  const jar = csrf.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const signedIn = await fetch(`${appUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  return signedIn.headers
    .getSetCookie()
    .find((cookie) => cookie.startsWith('authjs.session-token='))
    ?.split(';')[0];
}
