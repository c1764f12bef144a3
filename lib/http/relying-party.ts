import { env, type Settings } from '@/lib/env';
import { hostProblem, type PasskeyHostProblem, type RelyingParty, relyingPartyOf } from '@/lib/passkeys/relying-party';
import { targetedOrigin } from './origin';

/**
 * The passkeys' relying party for a request: APP_URL's host when it is set (passkeys are bound to
 * one host name, so every address of the app must agree), else the host the browser targeted.
 */
export function relyingParty(
  request: Request,
  settings: Pick<Settings, 'APP_URL' | 'TRUST_PROXY'> = env(),
): RelyingParty | undefined {
  return relyingPartyOf(settings.APP_URL ? new URL(settings.APP_URL).origin : targetedOrigin(request, settings));
}

/**
 * Why passkeys cannot be used from the address this request was made to (an IP address, another host than APP_URL's),
 * if so.
 */
export function passkeyHostProblem(
  request: Request,
  settings: Pick<Settings, 'APP_URL' | 'TRUST_PROXY'> = env(),
): PasskeyHostProblem | undefined {
  return hostProblem(relyingParty(request, settings), targetedOrigin(request, settings));
}
