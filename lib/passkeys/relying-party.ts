import { isIP } from 'node:net';

/**
 * Who the passkeys are for: WebAuthn's relying party, the origin its ceremonies run on (lib/http/relying-party.ts finds
 * it for a request).
 */
export type RelyingParty = { id: string; origin: string; name: string };

/** Why passkeys cannot be used here, in words the page shows, and the address to use instead. */
export type PasskeyHostProblem = { code: 'passkey_host'; message: string; useInstead?: string };

/** The relying party of an origin: its host name. */
export function relyingPartyOf(origin: string | undefined): RelyingParty | undefined {
  return origin ? { id: new URL(origin).hostname, origin, name: 'Countersign' } : undefined;
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '');

/**
 * Why passkeys cannot be used from `browsed` (the origin the browser is at), if so: an IP address
 * cannot be a WebAuthn relying party, and a passkey works only on its relying party's host and
 * its subdomains (APP_URL's host when that is set).
 */
export function hostProblem(rp: RelyingParty | undefined, browsed?: string): PasskeyHostProblem | undefined {
  if (!rp) return { code: 'passkey_host', message: 'Passkeys need the address the app is served at; set APP_URL.' };
  const browsedHost = browsed ? bare(new URL(browsed).hostname) : bare(rp.id);
  if (isIP(browsedHost) !== 0 || isIP(bare(rp.id)) !== 0) {
    const url = new URL(browsed ?? rp.origin);
    url.hostname = isIP(bare(rp.id)) === 0 ? rp.id : 'localhost';
    return {
      code: 'passkey_host',
      message:
        `Passkeys need a host name, and this page is open at the IP address ${browsedHost}. Open it at a host ` +
        `name (${url.origin}).`,
      useInstead: url.origin,
    };
  }
  if (browsedHost !== rp.id && !browsedHost.endsWith(`.${rp.id}`)) {
    return {
      code: 'passkey_host',
      message: `Passkeys here belong to ${rp.id} (APP_URL); open this page at ${rp.origin}.`,
      useInstead: rp.origin,
    };
  }
  return undefined;
}
