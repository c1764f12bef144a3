import {
  decisionChallengeSchema,
  passkeyAnswerSchema,
  passkeyListSchema,
  passkeyMemberListSchema,
  passkeySettingsAnswerSchema,
  registrationOptionsSchema,
} from '@/lib/api/responses/passkeys';
import {
  decisionChallengeRequest,
  passkeyOptionsRequest,
  passkeyRegisterRequest,
  passkeyRemoveRequest,
  passkeySettingsRequest,
} from '@/lib/passkeys/requests';
import { component } from '../components';
import { bodyOf, type ErrorCase, type Operation } from '../operation';

const passkey = component(passkeyAnswerSchema, 'PasskeyAnswer');
const HOST: ErrorCase = { status: 422, codes: ['passkey_host'] };

/**
 * Passkeys (docs/passkeys.md): a person's own, an admin's reset and tenant setting, and the challenge of a signed
 * decision.
 */
export const passkeyOperations: Operation[] = [
  {
    operationId: 'listMyPasskeys',
    method: 'get',
    path: '/api/v1/me/passkeys',
    tag: 'Operator API',
    access: 'session',
    summary: "The signed-in person's passkeys (names and dates, never key material)",
    description:
      'Also says, in `hostProblem`, when passkeys cannot be used at this address (an IP address) and the ' +
      'loopback host name to open it at instead.',
    success: [
      {
        status: 200,
        description: 'The passkeys, oldest first.',
        body: { json: component(passkeyListSchema, 'PasskeyList') },
      },
    ],
  },
  {
    operationId: 'passkeyRegistrationOptions',
    method: 'post',
    path: '/api/v1/me/passkeys/options',
    tag: 'Operator API',
    access: 'session',
    summary: 'Options to create a passkey with (the challenge works once, for 5 minutes)',
    description:
      'Pass them to `startRegistration` of @simplewebauthn/browser (or `navigator.credentials.create`). The ' +
      'relying party is APP_URL’s host; user verification is required; the person’s passkeys are excluded.',
    body: bodyOf(passkeyOptionsRequest, 'EmptyRequest'),
    success: [
      {
        status: 200,
        description: 'PublicKeyCredentialCreationOptionsJSON.',
        body: { json: component(registrationOptionsSchema, 'PasskeyRegistrationOptions') },
      },
    ],
    errors: [HOST],
  },
  {
    operationId: 'addPasskey',
    method: 'post',
    path: '/api/v1/me/passkeys',
    tag: 'Operator API',
    access: 'session',
    summary: 'Add a passkey: its name and the browser’s registration response',
    description:
      'The response must answer an unused, unexpired challenge from `POST /api/v1/me/passkeys/options`, on this ' +
      'origin, with the user verified. Audited as `passkey.registered` in each tenant of the person, with the ' +
      'credential id, public key and name.',
    body: bodyOf(passkeyRegisterRequest, 'PasskeyRegistration'),
    success: [{ status: 201, description: 'The passkey added.', body: { json: passkey } }],
    errors: [
      { status: 409, codes: ['passkey_exists'] },
      { status: 410, codes: ['passkey_challenge_unknown'] },
      { status: 422, codes: ['passkey_invalid', 'passkey_host'] },
    ],
  },
  {
    operationId: 'removeMyPasskey',
    method: 'delete',
    path: '/api/v1/me/passkeys/{id}',
    tag: 'Operator API',
    access: 'session',
    summary: 'Remove one of your passkeys',
    description:
      'Audited as `passkey.removed`. Your last passkey, while a tenant of yours requires passkeys for every ' +
      'approval, is refused (`last_passkey`): add another first, or ask an admin to reset it.',
    body: bodyOf(passkeyRemoveRequest, 'EmptyRequest'),
    success: [{ status: 200, description: 'The passkey removed.', body: { json: passkey } }],
    errors: [
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['last_passkey'] },
    ],
  },
  {
    operationId: 'listMemberPasskeys',
    method: 'get',
    path: '/api/v1/admin/members/{userId}/passkeys',
    tag: 'Admin API',
    access: 'admin',
    summary: "A member's passkeys (names and dates), to remove a lost one",
    description: 'Only members of the tenant the dashboard shows; anyone else is 404.',
    success: [
      {
        status: 200,
        description: 'The passkeys, oldest first.',
        body: { json: component(passkeyMemberListSchema, 'MemberPasskeyList') },
      },
    ],
    errors: [{ status: 404, codes: ['not_found'] }],
  },
  {
    operationId: 'resetPasskey',
    method: 'delete',
    path: '/api/v1/admin/passkeys/{id}',
    tag: 'Admin API',
    access: 'admin',
    summary: "Remove a member's passkey (lost, or their last where passkeys are required)",
    description:
      'Audited as `passkey.removed` with reason `admin_reset`, in each tenant of the passkey’s owner. A passkey ' +
      'of someone outside the tenant is 404. A passkey serves its person in every tenant: where another tenant ' +
      'of theirs requires passkeys for every approval, the reset is refused `409 passkey_required_elsewhere` ' +
      '(naming no tenant) and nothing changes; the person, or that tenant’s admin, can remove it.',
    body: bodyOf(passkeyRemoveRequest, 'EmptyRequest'),
    success: [{ status: 200, description: 'The passkey removed.', body: { json: passkey } }],
    errors: [
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['passkey_required_elsewhere'] },
    ],
  },
  {
    operationId: 'putPasskeySettings',
    method: 'put',
    path: '/api/v1/admin/passkeys/settings',
    tag: 'Admin API',
    access: 'admin',
    summary: 'Require (or stop requiring) a passkey signature on every approval in the tenant',
    description:
      'While on, an unsigned approval is refused `403 passkey_required`. Turning it on ends every standing grant ' +
      'of the tenant (each audited `grant.ended`, reason `policy_changed`). Audited as `tenant.settings_changed` ' +
      'when it changes. An admin without a passkey may turn it on (other members may have one); they cannot ' +
      'approve there until they add one.',
    body: bodyOf(passkeySettingsRequest, 'PasskeySettings'),
    success: [
      {
        status: 200,
        description: 'The setting now; `changed` is false when it already was so.',
        body: { json: component(passkeySettingsAnswerSchema, 'PasskeySettingsAnswer') },
      },
    ],
  },
  {
    operationId: 'decisionChallenge',
    method: 'post',
    path: '/api/v1/proposals/{id}/decisions/challenge',
    tag: 'Operator API',
    access: 'session',
    summary: 'The statement of your decision and the passkey options that sign it (2 minutes, once)',
    description:
      'The statement `{proposalId, tenantId, decision, payloadHash, revisionOf, userId, issuedAt, expiresAt, ' +
      'nonce}`; `options.challenge` is base64url(SHA-256(RFC 8785 text of the statement)). Sign with ' +
      '`startAuthentication` of @simplewebauthn/browser and send `passkey: {statement, response}` in the ' +
      'decision.',
    body: bodyOf(decisionChallengeRequest, 'DecisionChallengeRequest'),
    success: [
      {
        status: 200,
        description: 'The statement and the authentication options.',
        body: { json: component(decisionChallengeSchema, 'DecisionChallenge') },
      },
    ],
    errors: [
      { status: 403, codes: ['forbidden_role'] },
      { status: 404, codes: ['not_found'] },
      { status: 409, codes: ['no_passkey'] },
      HOST,
    ],
  },
];
