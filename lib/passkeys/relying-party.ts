import { isIP } from 'node:net';
import { env, type Settings } from '@/lib/env';
import { targetedOrigin } from '@/lib/http/origin';

/** Who the passkeys are for: WebAuthn's relying party, the origin its ceremonies run on. */
export type RelyingParty = { id: string; origin: string; name: string };

/** Why passkeys cannot be used here, in words the page shows, or undefined. */
export type PasskeyHostProblem = { code: 'passkey_host'; message: string; useInstead?: string };

/**
 * The relying party: APP_URL's host when it is set (passkeys are bound to one host name, so every
 * address of the app must agree), else the host the browser targeted.
 */
export function relyingParty(request: Request, settings: Pick<Settings, 'APP_URL' | 'TRUST_PROXY'> = env()): RelyingParty | undefined {
  const origin = settings.APP_URL ? new URL(settings.APP_URL).origin : targetedOrigin(request, settings);
  if (!origin) return undefined;
  return { id: new URL(origin).hostname, origin, name: 'Countersign' };
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
