import NextAuth, { CredentialsSignin, type NextAuthConfig } from 'next-auth';
import Credentials from 'next-auth/providers/credentials';
import { z } from 'zod';
import { env, oidcEnabled } from '@/lib/env';
import { safeReturnPath } from './return-to';

declare module 'next-auth' {
  interface Session {
    operatorId: string;
  }
}

const credentialsSchema = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(1).max(1024),
});

async function findUserByEmail(email: string) {
  const [{ getDb }, { users }, { eq }] = await Promise.all([import('@/db'), import('@/db/schema'), import('drizzle-orm')]);
  const db = await getDb();
  const [user] = await db.select().from(users).where(eq(users.email, email.toLowerCase())).limit(1);
  return user;
}

function providers(): NextAuthConfig['providers'] {
  const list: NextAuthConfig['providers'] = [
    Credentials({
      id: 'credentials',
      name: 'Email and password',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      async authorize(raw) {
        const parsed = credentialsSchema.safeParse({ email: raw.email, password: raw.password });
        if (!parsed.success) throw new CredentialsSignin();
        const { verifyPassword } = await import('./password');
        const user = await findUserByEmail(parsed.data.email);
        const ok = await verifyPassword(user?.passwordHash, parsed.data.password);
        if (!user || !ok) throw new CredentialsSignin();
        return { id: user.id, email: user.email, name: user.name };
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
  logger: { error: (error) => console.warn(`[auth] ${'type' in error && typeof error.type === 'string' ? error.type : error.name}`) },
  session: { strategy: 'jwt', maxAge: 12 * 60 * 60 },
  pages: { signIn: '/signin', error: '/signin' },
  providers: providers(),
  callbacks: {
    // SSO never creates people: an administrator adds them first, by verified email.
    async signIn({ user, account, profile }) {
      if (account?.provider === 'credentials') return true;
      if (profile?.email_verified === false || !user.email) return false;
      return Boolean(await findUserByEmail(user.email));
    },
    async jwt({ token, user, account }) {
      if (user && account) {
        const row = account.provider === 'credentials' ? { id: user.id } : await findUserByEmail(user.email ?? '');
        if (!row?.id) throw new CredentialsSignin();
        token.uid = row.id;
      }
      return token;
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
