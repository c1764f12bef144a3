import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http';
import type { Scope } from './world';

/** One credential per scope, as a real backend would issue them to Countersign's executors. */
export type ScopeCredentials = Record<Scope, string>;

const SCOPES: Scope[] = ['payments', 'inventory'];

export function assertCredentials(credentials: ScopeCredentials): void {
  for (const scope of SCOPES) {
    if (typeof credentials[scope] !== 'string' || credentials[scope].length < 16) {
      throw new Error(`The ${scope} credential must be at least 16 characters.`);
    }
  }
  if (credentials.payments === credentials.inventory)
    throw new Error('The payments and inventory credentials must differ.');
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const same = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

/** The scope whose credential the request presents: undefined without one, 'invalid' for an unknown one. */
export function presentedScope(request: IncomingMessage, credentials: ScopeCredentials): Scope | 'invalid' | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match?.[1]) return 'invalid';
  const token = match[1];
  // Compare with every credential so the time taken does not say which one matched.
  const matches = SCOPES.filter((scope) => same(token, credentials[scope]));
  return matches[0] ?? 'invalid';
}

const unauthenticated = () =>
  new HttpError(401, 'unauthenticated', 'Send the credential of this scope as "Authorization: Bearer <credential>".', {
    'WWW-Authenticate': 'Bearer',
  });

/** Writes and look-ups: only the scope's own credential. */
export function requireScope(request: IncomingMessage, credentials: ScopeCredentials, scope: Scope): void {
  const presented = presentedScope(request, credentials);
  if (presented === undefined || presented === 'invalid') throw unauthenticated();
  if (presented !== scope) throw new HttpError(403, 'wrong_scope', `This credential is not valid for ${scope}.`);
}

/** True for a peer on this machine (IPv4 127/8, IPv6 ::1, and IPv4-mapped loopback). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return address === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * Reads are open to peers on loopback (people watch effects land); from elsewhere they need a
 * scope credential. A credential that is presented must be valid, wherever the peer is.
 */
export function requireRead(request: IncomingMessage, credentials: ScopeCredentials): void {
  const presented = presentedScope(request, credentials);
  if (presented === 'invalid') throw unauthenticated();
  if (presented === undefined && !isLoopback(request.socket.remoteAddress)) throw unauthenticated();
}
