/**
 * The person a route test is signed in as. next-auth's `auth()` and Next's `cookies()` do not load
 * outside Next, so a route test mocks them with these (no imports here: the mocks load first):
 *   vi.mock('@/lib/auth', async () => (await import('@/test/route-session')).mockedAuth);
 *   vi.mock('next/headers', async () => (await import('@/test/route-session')).mockedHeaders);
 */
export const routeSession: { userId: string | undefined } = { userId: undefined };

export const mockedAuth = { auth: async () => (routeSession.userId ? { operatorId: routeSession.userId } : null) };

export const mockedHeaders = { cookies: async () => ({ get: () => undefined }) };
