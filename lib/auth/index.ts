import 'server-only';
import NextAuth, { CredentialsSignin, type NextAuthConfig } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { z } from 'zod';
import { env, oidcEnabled } from '@/lib/env';
import { clientAddress } from './client-address';
import { sessionCookies, usesSecureCookies } from './cookies';
import { MAX_PASSWORD } from './password-rules';
import { safeReturnPath } from './return-to';

declare module 'next-auth' {
  interface Session {
    operatorId: string;
  }
  interface User {
    /** A password sign-in's session, started where the password was checked. */
    sid?: string;
  }
}

/** Too many failed sign-ins for this account or address: try again later (same for unknown accounts). */
export class SignInThrottled extends CredentialsSignin {
  code = 'throttled';
}

const credentialsSchema = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(1).max(MAX_PASSWORD),
});

// The database is imported lazily: `next build` evaluates this module and must open no database.
const database = async () => (await import('@/lib/database')).getDb();

async function findUserByEmail(email: string) {
  const [{ users }, { eq }] = await Promise.all([import('@/db/schema'), import('drizzle-orm')]);
  const [user] = await (await database()).select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
  return user;
}

/** Checks a password behind the throttle: a refused attempt checks nothing and changes nothing. */
async function authorizePassword(email: string, password: string, request: Request) {
  const [throttle, { verifyPassword }, sessions] = await Promise.all([
    import('./throttle'),
    import('./password'),
    import('./sessions'),
  ]);
  const db = await database();
  const attempt = { email, address: clientAddress(request.headers) };
  const admission = await throttle.admitSignIn(db, attempt);
  if (!admission.allowed) throw new SignInThrottled();
  const user = await findUserByEmail(email);
  const ok = await verifyPassword(user?.passwordHash, password);
  if (!user || !ok) {
    const { locked } = await throttle.signInFailed(db, attempt);
    if (locked) console.warn('[auth] sign-in locked for an account at an address (too_many_failures)');
    throw new CredentialsSignin();
  }
  await throttle.signInSucceeded(db, attempt);
  // Started here, against the hash just checked: a password cleared meanwhile opens nothing.
  const sid = await sessions.startPasswordSession(db, user.id, user.passwordHash!);
  if (!sid) throw new CredentialsSignin();
  return { id: user.id, email: user.email, name: user.name, sid };
}

async function recordOidcRefusal(userId: string, reasonCode: string) {
  const { recordAccountEvent, signInFailedEvent } = await import('./account-events');
  await (await database()).transaction((tx) =>
    recordAccountEvent(tx, userId, signInFailedEvent({ userId, method: 'oidc', reasonCode })),
  );
}

function providers(): NextAuthConfig['providers'] {
  const list: NextAuthConfig['providers'] = [
    Credentials({
      id: 'credentials',
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      async authorize(raw, request) {
        const parsed = credentialsSchema.safeParse({ email: raw.email, password: raw.password });
        if (!parsed.success) throw new CredentialsSignin();
        return authorizePassword(parsed.data.email, parsed.data.password, request);
      },
    }),
  ];
  const settings = env();
  if (oidcEnabled(settings)) {
    list.push({
      id: 'oidc',
      name: settings.OIDC_NAME,
      type: 'oidc',
      issuer: settings.OIDC_ISSUER,
      clientId: settings.OIDC_CLIENT_ID,
      clientSecret: settings.OIDC_CLIENT_SECRET,
      checks: ['pkce', 'state', 'nonce'],
      // Read email and email_verified from the userinfo endpoint (the subject is checked against
      // the ID token's): a provider following OIDC Core 5.4 releases scope claims there and may
      // leave them out of the ID token, which would refuse everyone.
      idToken: false,
    });
  }
  return list;
}

export const { handlers, auth, signIn, signOut } = NextAuth(() => ({
  secret: env().AUTH_SECRET,
  trustHost: true,
  // Failed sign-ins are expected traffic: log the error's name only, never its details or input.
  // (Auth.js errors carry their kind in `type`; `name` is the class name, minified in the build.)
  logger: {
    error: (error) =>
      console.warn(`[auth] ${'type' in error && typeof error.type === 'string' ? error.type : error.name}`),
  },
  // The cookie carries a signed, encrypted JWT naming a `sessions` row; the row decides whether it
  // is alive (lib/auth/sessions.ts), so sign-out and the lifetimes hold whatever the cookie says.
  session: { strategy: 'jwt', maxAge: env().SESSION_MAX_HOURS * 60 * 60 },
  useSecureCookies: usesSecureCookies(),
  cookies: sessionCookies(),
  pages: { signIn: '/signin', error: '/signin' },
  providers: providers(),
  events: {
    async signOut(message) {
      const sid = 'token' in message ? message.token?.sid : undefined;
      if (typeof sid === 'string') await (await import('./sessions')).endSession(await database(), sid, 'signed_out');
    },
  },
  callbacks: {
    // SSO never creates people: an administrator adds them first, by verified email. An account an
    // invitation link made is opened only by a provider that vouches for the address: nothing else
    // says the person signing in owns it. A refusal for a known account is recorded; an unknown
    // email is recorded nowhere.
    async signIn({ user, account, profile }) {
      if (account?.provider === 'credentials') return true;
      if (!user.email) return false;
      const known = await findUserByEmail(user.email);
      if (!known) return false;
      const vouched = (await import('./email-codes')).ssoMayOpen(known, profile?.email_verified);
      if (!vouched) await recordOidcRefusal(known.id, 'email_unverified');
      return vouched;
    },
    async jwt({ token, user, account, profile }) {
      const sessions = await import('./sessions');
      if (user && account) {
        const row = account.provider === 'credentials' ? { id: user.id } : await findUserByEmail(user.email ?? '');
        if (!row?.id) throw new CredentialsSignin();
        if (account.provider !== 'credentials' && profile?.email_verified === true)
          await (await import('./email-codes')).addressProvenBySso(await database(), row.id);
        token.uid = row.id;
        token.sid =
          account.provider === 'credentials' ? user.sid : await sessions.startSession(await database(), row.id, 'oidc');
        if (typeof token.sid !== 'string') throw new CredentialsSignin();
        return token;
      }
      // Returning null ends the cookie too: a token whose session row is gone is worth nothing.
      if (typeof token.sid !== 'string' || typeof token.uid !== 'string') return null;
      return (await sessions.sessionIsLive(await database(), token.sid, token.uid)) ? token : null;
    },
    session({ session, token }) {
      return { ...session, operatorId: typeof token.uid === 'string' ? token.uid : '' };
    },
    redirect({ url, baseUrl }) {
      if (url.startsWith('/')) return `${baseUrl}${safeReturnPath(url)}`;
      try {
        const target = new URL(url);
        if (target.origin === baseUrl) return `${baseUrl}${safeReturnPath(`${target.pathname}${target.search}`)}`;
      } catch {
        // fall through to the queue
      }
      return baseUrl;
    },
  },
}));
