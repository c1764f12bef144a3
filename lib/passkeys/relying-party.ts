import { isIP } from 'node:net';

/** Who the passkeys are for: WebAuthn's relying party, the origin its ceremonies run on (lib/http/relying-party.ts finds it for a request). */
export type RelyingParty = { id: string; origin: string; name: string };

/** Why passkeys cannot be used here, in words the page shows, and the address to use instead. */
export type PasskeyHostProblem = { code: 'passkey_host'; message: string; useInstead?: string };

/** The relying party of an origin: its host name. */
export function relyingPartyOf(origin: string | undefined): RelyingParty | undefined {
  return origin ? { id: new URL(origin).hostname, origin, name: 'Countersign' } : undefined;
}

/** Passkeys need a host name: an IP address cannot be a WebAuthn relying party. */
export function hostProblem(rp: RelyingParty | undefined): PasskeyHostProblem | undefined {
  if (!rp) return { code: 'passkey_host', message: 'Passkeys need the address the app is served at; set APP_URL.' };
  const host = rp.id.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return undefined;
  const url = new URL(rp.origin);
  url.hostname = 'localhost';
  return { code: 'passkey_host', message: `Passkeys need a host name, and this app is served at the IP address ${host}. Open it at a host name (on this machine, ${url.origin}).`, useInstead: url.origin };
}
