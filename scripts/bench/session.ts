/**
 * A dashboard session over real HTTP, through next-auth's own credentials flow (as e2e/support.ts
 * does with Playwright): GET the CSRF token, POST the credentials callback, keep the cookies.
 */
function absorb(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair?.indexOf('=') ?? -1;
    if (pair && at > 0) jar.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
  }
}

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');

/** Signs in and answers the Cookie header of the session; throws (without the password) when refused. */
export async function signIn(appUrl: string, email: string, password: string): Promise<string> {
  const jar = new Map<string, string>();
  const csrfResponse = await fetch(`${appUrl}/api/auth/csrf`);
  absorb(jar, csrfResponse);
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken: string };
  const callback = await fetch(`${appUrl}/api/auth/callback/credentials`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader(jar) },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: '/' }),
  });
  await callback.arrayBuffer();
  absorb(jar, callback);
  const sessionResponse = await fetch(`${appUrl}/api/auth/session`, { headers: { cookie: cookieHeader(jar) } });
  const session = (await sessionResponse.json()) as { operatorId?: string } | null;
  if (!session?.operatorId)
    throw new Error(`signing in as ${email} did not start a session (callback answered ${callback.status})`);
  return cookieHeader(jar);
}
