/**
 * A real OpenID Connect provider for the end-to-end suite (oidc-provider, the certified
 * implementation), so "Continue with single sign-on" is tested against the protocol and not a mock.
 *
 *   E2E_OIDC_PORT=3211 E2E_PORT=3210 OIDC_CLIENT_ID=… OIDC_CLIENT_SECRET=… node --import tsx e2e/oidc-provider.ts
 *
 * playwright.config.ts starts it (before the app) with the same client id and secret it gives the app.
 *
 * Its built-in development interactions render a login form (any password) and a consent form.
 * The account id typed at the login form becomes the `sub`; the accounts below decide the claims.
 * It is deliberately strict, like a standards-following provider: the ID token carries only what
 * the OpenID spec puts there (conformIdTokenClaims), so email and email_verified are released by
 * the userinfo endpoint.
 */
import http from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';

// Its start-up warnings (development adapter, development interactions, Node 20) are expected
// here; anything else it says on stderr is worth reading in the Playwright output.
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  if (typeof args[0] === 'string' && args[0].startsWith('oidc-provider WARNING')) return;
  warn(...args);
};

type Claims = { sub: string; email: string; email_verified: boolean; name: string };

/** Who can sign in at this provider. Only alice and bob are also Countersign people. */
const ACCOUNTS: Record<string, Omit<Claims, 'sub'>> = {
  alice: { email: 'alice@acme.test', email_verified: true, name: 'Alice (SSO)' },
  mallory: { email: 'mallory@evil.test', email_verified: true, name: 'Mallory' },
  bob: { email: 'bob@acme.test', email_verified: false, name: 'Bob (unverified)' },
};

type Account = { accountId: string; claims(): Claims };
type ProviderInstance = {
  callback(): http.RequestListener;
  on(event: string, listener: (...args: unknown[]) => void): void;
};
type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => ProviderInstance;

type Options = { port: number; appOrigin: string; clientId: string; clientSecret: string };

async function startOidcProvider({ port, appOrigin, clientId, clientSecret }: Options): Promise<http.Server> {
  const issuer = `http://localhost:${port}`;
  // Imported after console.warn is filtered: it warns about the runtime as it loads.
  const Provider = (await import('oidc-provider')).default as ProviderConstructor;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [`${appOrigin}/api/auth/callback/oidc`],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // The client is confidential, so PKCE is optional for the provider; next-auth sends it anyway
    // and the provider verifies whatever it receives.
    pkce: { required: () => false },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    async findAccount(_ctx: unknown, id: string): Promise<Account | undefined> {
      const account = ACCOUNTS[id];
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, ...account }) };
    },
    features: { devInteractions: { enabled: true } },
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'e2e', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['e2e-oidc-cookie-key-not-for-production'] },
    clientBasedCORS: () => false,
    renderError(ctx: { type: string; body: string }, out: Record<string, string>) {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>OIDC error</title><pre data-testid="oidc-error">${Object.entries(out)
        .map(([key, value]) => `${key}: ${String(value).replace(/[<>&]/g, '')}`)
        .join('\n')}</pre>`;
    },
  });
  provider.on('server_error', (_ctx, error) => console.error('[oidc-provider] server_error', error));
  const server = http.createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

const options: Options = {
  port: Number(process.env.E2E_OIDC_PORT ?? 3211),
  appOrigin: `http://localhost:${process.env.E2E_PORT ?? 3210}`,
  clientId: process.env.OIDC_CLIENT_ID ?? 'countersign-e2e',
  clientSecret: process.env.OIDC_CLIENT_SECRET ?? 'e2e-client-secret-not-for-production-use',
};

startOidcProvider(options).then(
  (server) => {
    console.log(
      `[oidc-provider] issuer http://localhost:${options.port}, client ${options.clientId}, redirect ${options.appOrigin}/api/auth/callback/oidc`,
    );
    const stop = () => {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  },
  (error: unknown) => {
    console.error('[oidc-provider] could not start:', error);
    process.exit(1);
  },
);
