import { type RequestBody, requestBody } from '@/lib/input/request-body';
import { agentKeyInput, KEY_INVALID, type RevocationInput, revocationInput, rotationInput } from './agent-keys';

/** The request bodies of the agent key admin API (`/api/v1/admin/agent-keys/…`). */

/** `POST /api/v1/admin/agent-keys`: `{name, actions, grants?}`. */
export const agentKeyCreateRequest = requestBody(agentKeyInput, 'invalid_agent_key', KEY_INVALID);

/** `POST …/:id/rotate`: `{overlapMinutes}`. */
export const agentKeyRotateRequest = requestBody(
  rotationInput,
  'invalid_rotation',
  'The rotation is not valid: send {"overlapMinutes": 0–10080}.',
);

/** `POST …/:id/revoke`: `{scope?: "key" | "agent"}`; no body revokes the one key. */
export const agentKeyRevokeRequest: RequestBody<RevocationInput> = {
  ...requestBody(
    revocationInput,
    'invalid_revocation',
    'The revocation is not valid: send {} or no body to revoke this key, or {"scope": "agent"} to stop the agent ' +
      '(every key of it).',
  ),
  whenAbsent: {},
};
