import { env, type Settings } from '@/lib/env';

// In lib/auth, beside the throttles that key on it, so sign-in reads it without importing lib/http.

/** Set by the server from each request's socket (lib/http/peer.ts); a client's own copy is replaced. */
export const PEER_HEADER = 'x-countersign-peer';

/**
 * The client's address for throttling: with TRUST_PROXY=1 the last X-Forwarded-For hop (the one
 * our proxy appended; earlier hops are the client's word), else the socket's peer.
 */
export function clientAddress(headers: Headers, settings: Pick<Settings, 'TRUST_PROXY'> = env()): string {
  if (settings.TRUST_PROXY) {
    const hops = (headers.get('x-forwarded-for') ?? '')
      .split(',')
      .map((hop) => hop.trim())
      .filter(Boolean);
    const last = hops.at(-1);
    if (last) return last;
  }
  return headers.get(PEER_HEADER) ?? 'unknown';
}
