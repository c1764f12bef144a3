import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type {
  DecisionChallenge,
  PasskeyAnswer,
  PasskeyList,
  PasskeySettingsAnswer,
} from '@/lib/api/responses/passkeys';
import type { SignedDecision } from '@/lib/passkeys/requests';
import { type ApiProblem, type ApiResult, call, sendJson } from './operator-api';

/**
 * The dashboard's client for passkeys (docs/passkeys.md), through the one `call`: the person's own
 * (`/api/v1/me/passkeys`), the signature of a decision, and an admin's reset and tenant setting.
 * The browser's WebAuthn prompt is @simplewebauthn/browser's; a cancelled or failed prompt comes
 * back as a problem like a refusal.
 */

const BASE = '/api/v1/me/passkeys';

/** A WebAuthn prompt that did not finish (cancelled, timed out, no authenticator). */
function promptProblem(error: unknown): ApiProblem {
  const name = error instanceof Error ? error.name : '';
  const message =
    name === 'NotAllowedError'
      ? 'The passkey prompt was cancelled or timed out; nothing was recorded.'
      : `The passkey prompt failed${error instanceof Error && error.message ? `: ${error.message}` : ''}; ` +
        `nothing was recorded.`;
  return { status: 0, code: 'passkey_prompt', message, issues: [] };
}

export function fetchPasskeys(): Promise<ApiResult<PasskeyList>> {
  return call(BASE, { headers: { accept: 'application/json' } }, 'The passkeys could not be read');
}

/** Asks for options, lets the browser create the passkey, and adds it under `name`. */
export async function addPasskey(name: string): Promise<ApiResult<PasskeyAnswer>> {
  const options = await call<Parameters<typeof startRegistration>[0]['optionsJSON']>(
    `${BASE}/options`,
    sendJson({}),
    'The passkey could not be started',
  );
  if (!options.ok) return options;
  let response: Awaited<ReturnType<typeof startRegistration>>;
  try {
    response = await startRegistration({ optionsJSON: options.value });
  } catch (error) {
    return { ok: false, problem: promptProblem(error) };
  }
  return call(BASE, sendJson({ name, response }), 'The passkey was not added');
}

export function removePasskey(id: string): Promise<ApiResult<PasskeyAnswer>> {
  return call(`${BASE}/${encodeURIComponent(id)}`, { method: 'DELETE' }, 'The passkey was not removed');
}

/**
 * The signature of one decision: the server's statement for it, signed by the person's passkey
 * in the browser's prompt (user verification required). Goes in the decision as `passkey`.
 */
export async function signDecision(
  proposalId: string,
  decision: 'approve' | 'reject',
): Promise<ApiResult<SignedDecision>> {
  const challenge = await call<DecisionChallenge>(
    `/api/v1/proposals/${encodeURIComponent(proposalId)}/decisions/challenge`,
    sendJson({ decision }),
    'The statement to sign was not issued',
  );
  if (!challenge.ok) return challenge;
  try {
    const response = await startAuthentication({
      optionsJSON: challenge.value.options as Parameters<typeof startAuthentication>[0]['optionsJSON'],
    });
    return {
      ok: true,
      value: { statement: challenge.value.statement, response: response as SignedDecision['response'] },
    };
  } catch (error) {
    return { ok: false, problem: promptProblem(error) };
  }
}

/** An admin reads a member's passkeys (names and dates). */
export function fetchMemberPasskeys(userId: string): Promise<ApiResult<{ passkeys: PasskeyList['passkeys'] }>> {
  return call(
    `/api/v1/admin/members/${encodeURIComponent(userId)}/passkeys`,
    { headers: { accept: 'application/json' } },
    "The member's passkeys could not be read",
  );
}

/** An admin removes a member's passkey (lost, or their last where passkeys are required). */
export function resetPasskey(id: string): Promise<ApiResult<PasskeyAnswer>> {
  return call(`/api/v1/admin/passkeys/${encodeURIComponent(id)}`, { method: 'DELETE' }, 'The passkey was not removed');
}

/**
 * An admin requires (or stops requiring) a passkey on every approval in the tenant in view; turning it on ends its
 * standing grants.
 */
export function putPasskeySettings(requirePasskeys: boolean): Promise<ApiResult<PasskeySettingsAnswer>> {
  return call('/api/v1/admin/passkeys/settings', sendJson({ requirePasskeys }, 'PUT'), 'The setting was not saved');
}
