import type { z } from 'zod';
import { agentKeyCreateRequest, agentKeyRevokeRequest, agentKeyRotateRequest } from '@/lib/admin/agent-key-requests';
import {
  acceptRequest,
  deletionRequest,
  emailCodeCheckRequest,
  emailCodeRequest,
  invitationCodeRequest,
  invitationRequest,
  roleChangeRequest,
} from '@/lib/admin/requests';
import * as answers from '@/lib/api/responses/admin';
import { oversightSettingsAnswerSchema } from '@/lib/api/responses/oversight';
import { executionsPauseRequest, executionsResumeRequest } from '@/lib/commands/executions-requests';
import { contractStatusRequest } from '@/lib/contracts/requests';
import {
  channelChangeRequest,
  channelCreateRequest,
  channelTestRequest,
  deliveryRetryRequest,
  notificationSettingsRequest,
} from '@/lib/notifications/requests';
import { oversightSettingsRequest } from '@/lib/oversight/settings';
import { BACKTEST_LIMIT } from '@/lib/policy/backtest';
import { policyDocumentSchema, policyDraftSchema, policyJsonBody, policyPreviewSchema } from '@/lib/policy/requests';
import { component } from '../components';
import { bodyOf, type ErrorCase, type Operation, type Success } from '../operation';
import { NO_MEMBERSHIP } from './reads';

/**
 * Admin answers carry `Date`s written as ISO strings: their wire form is the codecs' input side (responses/admin.ts).
 */
const answer = (schema: z.ZodType, id: string) => component(schema, id, 'input');
const ok = (status: number, description: string, schema: z.ZodType, id: string): Success => ({
  status,
  description,
  body: { json: answer(schema, id) },
});
const notFound: ErrorCase = { status: 404, codes: ['not_found'] };

type AdminOperation = Omit<Operation, 'tag' | 'access'> & { access?: Operation['access'] };
const admin = (operation: AdminOperation): Operation => ({ tag: 'Admin API', access: 'admin', ...operation });

const key = answer(answers.issuedAgentKeySchema, 'IssuedAgentKey');
const delivery = answer(answers.deliveryAnswerSchema, 'DeliveryAnswer');
const policies = '/api/v1/admin/policies';

/**
 * The admin API (docs/operators.md, "Administration in the dashboard"): the tenant is the one the dashboard shows,
 * never the body's.
 */
export const adminOperations: Operation[] = [
  admin({
    operationId: 'listAgentKeys',
    description:
      'Every key of the tenant the dashboard shows: prefix, agent name, actions, grants, created, last used ' +
      '(written at most once a minute per key) and state (`active`, `expiring` after a rotation, `expired`, ' +
      '`revoked`).',
    method: 'get',
    path: '/api/v1/admin/agent-keys',
    summary: "The tenant's agent keys (never a key or its hash)",
    success: [ok(200, 'The keys, with their state now.', answers.agentKeyListSchema, 'AgentKeyList')],
  }),
  admin({
    operationId: 'issueAgentKey',
    description:
      'A key for one agent name, the actions it may propose and the grants those actions read (an action that ' +
      "reads no grant refuses any, 422). Only the key's hash is stored: keep the `key` of this answer. Audited " +
      'as `agent_key.created`.',
    method: 'post',
    path: '/api/v1/admin/agent-keys',
    summary: 'Issue an agent key',
    body: bodyOf(agentKeyCreateRequest, 'AgentKeyRequest'),
    success: [{ status: 201, description: 'The key itself is in this answer and never again.', body: { json: key } }],
  }),
  admin({
    operationId: 'revokeAgentKey',
    description:
      "The key's next request is 401; its waiting proposals go stale when someone decides them. Audited as " +
      '`agent_key.revoked`. No body (or `{}`, or `{"scope": "key"}`) revokes this key only; `{"scope": "agent"}` ' +
      'stops the agent: every key of its name in the tenant that still works (a key rotated away in its overlap ' +
      "too), each audited, in one transaction. The answer lists the keys revoked and the agent's keys that " +
      'still work, each until its `expiresAt` (null: until revoked) — after revoking the newest key of a ' +
      'rotation, the old one works to the end of its overlap unless the agent is stopped.',
    method: 'post',
    path: '/api/v1/admin/agent-keys/{id}/revoke',
    summary: 'Revoke an agent key at once, or stop its agent',
    body: bodyOf(agentKeyRevokeRequest, 'RevocationRequest'),
    success: [
      ok(
        200,
        'The revoked key, every key revoked, and what of the agent still works.',
        answers.revokedAgentKeySchema,
        'RevokedAgentKey',
      ),
    ],
    errors: [notFound, { status: 409, codes: ['already_revoked', 'agent_already_stopped'] }],
  }),
  admin({
    operationId: 'rotateAgentKey',
    description:
      'A new key with the same name, actions and grants; the old one keeps working for `overlapMinutes` ' +
      '(0–10080) and is then refused like a revoked one. Audited as `agent_key.rotated`.',
    method: 'post',
    path: '/api/v1/admin/agent-keys/{id}/rotate',
    summary: 'Replace an agent key; the old one works for `overlapMinutes` more',
    body: bodyOf(agentKeyRotateRequest, 'RotationRequest'),
    success: [{ status: 201, description: 'The new key, shown once.', body: { json: key } }],
    errors: [notFound, { status: 409, codes: ['already_revoked', 'already_rotated'] }],
  }),
  admin({
    operationId: 'listContractRollout',
    description:
      "Per action and contract version: the tenant's status (overriding the action module's default), its " +
      'sunset, and the agents that sent it in the last 30 days with when they last did.',
    method: 'get',
    path: '/api/v1/admin/contracts',
    summary: "Each action's contract versions, their statuses and senders",
    success: [ok(200, 'The rollout.', answers.contractRolloutListSchema, 'ContractRolloutList')],
  }),
  admin({
    operationId: 'setContractStatus',
    description:
      'Allowed: shadow → current, supported or retired; supported → current, retired or supported (sunset set or ' +
      'cleared); retired → shadow or supported. Promoting a version to `current` makes the old current ' +
      '`supported`. Audited as `contract.status_changed`.',
    method: 'post',
    path: '/api/v1/admin/contracts/{action}/{version}',
    summary: 'Move a contract version (shadow, current, supported with a sunset, retired)',
    body: bodyOf(contractStatusRequest, 'ContractStatusRequest'),
    success: [
      ok(
        200,
        'Whether anything changed, and the action now.',
        answers.contractStatusChangedSchema,
        'ContractStatusChanged',
      ),
    ],
    errors: [
      notFound,
      {
        status: 409,
        codes: ['invalid_transition', 'cannot_retire_current', 'cannot_demote_current', 'retired_needs_reinstatement'],
      },
      { status: 422, codes: ['sunset_requires_supported', 'sunset_in_past'] },
    ],
  }),
  admin({
    operationId: 'listMembers',
    description:
      "The tenant's members with their roles, and the invitations still pending (who, which role, until when).",
    method: 'get',
    path: '/api/v1/admin/members',
    summary: 'Members and pending invitations (never a token)',
    success: [ok(200, 'Members and invitations.', answers.memberListSchema, 'MemberList')],
  }),
  admin({
    operationId: 'inviteMember',
    description:
      'Makes a one-time link `<APP_URL>/invite/<token>`, valid once for 72 hours: send it yourself (only the ' +
      "token's SHA-256 is stored). Inviting the same address again replaces the old link. Audited as " +
      '`membership.invited`.',
    method: 'post',
    path: '/api/v1/admin/members',
    summary: 'Invite someone by email',
    body: bodyOf(invitationRequest, 'InvitationRequest'),
    success: [
      ok(
        201,
        'The one-time link is in this answer and never again.',
        answers.invitationCreatedSchema,
        'InvitationCreated',
      ),
    ],
    errors: [{ status: 409, codes: ['already_member'] }],
  }),
  admin({
    operationId: 'changeMemberRole',
    description:
      "The new role holds from the member's next request. The last admin cannot be demoted (`409 last_admin`). " +
      'Audited as `membership.granted` with the previous role. In the same transaction it ends their standing ' +
      'grants and withdraws their approvals of waiting proposals whose rule the new role no longer meets (each ' +
      'audited `proposal.approval_withdrawn`).',
    method: 'patch',
    path: '/api/v1/admin/members/{userId}',
    summary: "Change a member's role (from their next request)",
    body: bodyOf(roleChangeRequest, 'RoleChangeRequest'),
    success: [ok(200, 'The new and the previous role.', answers.roleChangedSchema, 'RoleChanged')],
    errors: [notFound, { status: 409, codes: ['last_admin'] }],
  }),
  admin({
    operationId: 'removeMember',
    description:
      'Their access to this tenant ends at their next request; sessions that may serve other tenants are left ' +
      'alone. The last admin cannot be removed (`409 last_admin`). No body, or `{}`. Audited as ' +
      '`membership.removed`; their approvals of waiting proposals are withdrawn in the same transaction (each ' +
      'audited `proposal.approval_withdrawn`).',
    method: 'delete',
    path: '/api/v1/admin/members/{userId}',
    summary: 'Remove a member and end their sessions',
    body: bodyOf(deletionRequest, 'EmptyRequest'),
    success: [ok(200, 'Who was removed.', answers.memberRemovedSchema, 'MemberRemoved')],
    errors: [notFound, { status: 409, codes: ['last_admin'] }],
  }),
  admin({
    operationId: 'cancelInvitation',
    description: 'The link stops working at once. No body, or `{}`. Audited as `membership.invitation_cancelled`.',
    method: 'delete',
    path: '/api/v1/admin/members/invitations/{id}',
    summary: 'Cancel a pending invitation',
    body: bodyOf(deletionRequest, 'EmptyRequest'),
    success: [ok(200, 'The cancelled invitation.', answers.invitationCancelledSchema, 'InvitationCancelled')],
    errors: [notFound],
  }),
  {
    operationId: 'sendInvitationCode',
    method: 'post',
    path: '/api/v1/invitations/code',
    tag: 'Public',
    summary: 'Email a code to the address an invitation names (the first step of accepting it signed out)',
    access: 'public',
    description:
      'The code goes to the invited address only, never to one the caller names; an address gets at most one ' +
      'code a minute, and a new one replaces the pending one. Audited as `membership.invitation_code_sent`. ' +
      'Every attempt counts at the client address in the sign-in throttle until one succeeds.',
    body: bodyOf(invitationCodeRequest, 'InvitationCodeRequest'),
    success: [
      ok(200, 'Where the code went (the code is only in the email).', answers.emailCodeSentSchema, 'EmailCodeSent'),
    ],
    errors: [
      { status: 404, codes: ['invitation_not_found'] },
      { status: 410, codes: ['invitation_used', 'invitation_expired'] },
      { status: 429, codes: ['code_recently_sent', 'too_many_attempts'], headers: ['Retry-After'] },
    ],
  },
  {
    operationId: 'acceptInvitation',
    method: 'post',
    path: '/api/v1/invitations/accept',
    tag: 'Public',
    summary: 'Accept an invitation (the owner of the address proves it first; nobody else ever sets its credential)',
    access: 'public',
    description:
      'Signed out: `{token, code, password}`, the code from `POST /api/v1/invitations/code`, proves the address ' +
      "in the same transaction; the password then goes on a new account, or on the address's unproven account, " +
      'whose earlier password, passkeys and sessions proving ends. A proven account is told to sign in ' +
      '(`sign_in_required`). Or `{token, sso: true}` (when single sign-on is configured): a new account with no ' +
      'credential, opened only by a sign-in whose provider vouches for the address. Without a code or SSO the ' +
      'answer is always `code_required`. With a session of the invited address: nothing but the token. Every ' +
      'attempt counts at the client address in the sign-in throttle until one succeeds; an address over its ' +
      'limit is answered `429 too_many_attempts` with `Retry-After`, as sign-in is.',
    body: bodyOf(acceptRequest, 'AcceptRequest'),
    success: [
      ok(
        200,
        'Whom the invitation was for and how they sign in now.',
        answers.invitationAcceptedSchema,
        'InvitationAccepted',
      ),
    ],
    errors: [
      { status: 403, codes: ['invitation_for_another_address'] },
      { status: 404, codes: ['invitation_not_found'] },
      { status: 409, codes: ['sign_in_required', 'already_member', 'address_unverified'] },
      { status: 410, codes: ['invitation_used', 'invitation_expired', 'code_expired'] },
      { status: 422, codes: ['code_required', 'code_wrong', 'sso_unavailable', 'signed_in'] },
      { status: 429, codes: ['too_many_attempts', 'code_attempts_exhausted'], headers: ['Retry-After'] },
    ],
  },
  {
    operationId: 'sendEmailCode',
    method: 'post',
    path: '/api/v1/account/email-code',
    tag: 'Operator API',
    summary: "Email a code to the signed-in person's own address (through the operator's SMTP_URL)",
    access: 'session',
    description:
      'A server without SMTP_URL answers `503 email_unavailable`; an SMTP server that refuses, `502 email_not_sent`.',
    body: bodyOf(emailCodeRequest, 'EmptyRequest'),
    success: [
      ok(200, 'Where the code went (the code is only in the email).', answers.emailCodeSentSchema, 'EmailCodeSent'),
    ],
    errors: [
      { status: 409, codes: ['already_verified'] },
      { status: 429, codes: ['code_recently_sent'], headers: ['Retry-After'] },
    ],
  },
  {
    operationId: 'verifyEmailCode',
    description:
      'The code from `POST /api/v1/account/email-code`: right once within 15 minutes and 5 tries. A proven ' +
      'address lifts the confinement of an account made from an invitation link, and takes such an account over ' +
      'for its owner: its password and passkeys are removed and its sessions (this one too) end ' +
      '(`credentialsCleared: true`).',
    method: 'post',
    path: '/api/v1/account/email-code/verify',
    tag: 'Operator API',
    summary: "Prove the signed-in person's address with the emailed code (15 minutes, 5 tries, once)",
    access: 'session',
    body: bodyOf(emailCodeCheckRequest, 'EmailCodeCheck'),
    success: [ok(200, 'When the address was proven.', answers.emailVerifiedSchema, 'EmailVerified')],
    errors: [
      { status: 410, codes: ['code_expired'] },
      { status: 422, codes: ['code_wrong'] },
      { status: 429, codes: ['code_attempts_exhausted'] },
    ],
  },
  admin({
    operationId: 'getNotifications',
    description:
      "What the notification settings page shows: the tenant's settings, every channel (a webhook's secret " +
      'never), and the last 50 deliveries with their status and attempts.',
    method: 'get',
    path: '/api/v1/admin/notifications',
    summary: 'Notification settings, channels (no secrets) and the last 50 deliveries',
    success: [
      ok(200, 'Settings, channels and deliveries.', answers.notificationsOverviewSchema, 'NotificationsOverview'),
    ],
  }),
  admin({
    operationId: 'createChannel',
    description:
      "An email address or a webhook URL (checked against the operator's allowed targets), the events it hears, " +
      'and its digest threshold (`digestThreshold`, 0–100, default 5; 0 sends every message on its own): more ' +
      'messages than that within a minute, and the rest of that minute go as one digest when it is up. A ' +
      "webhook's deliveries are signed (Standard Webhooks) with the secret in this answer.",
    method: 'post',
    path: '/api/v1/admin/notifications/channels',
    summary: 'Add a notification channel',
    body: bodyOf(channelCreateRequest, 'ChannelRequest'),
    success: [
      ok(
        201,
        "A webhook's signing secret is in this answer and never again.",
        answers.channelCreatedSchema,
        'ChannelCreated',
      ),
    ],
    errors: [{ status: 422, codes: ['target_not_allowed'] }],
  }),
  admin({
    operationId: 'changeChannel',
    description:
      'Any of the target, the events, `enabled` and `digestThreshold` (a whole number 0–100; anything else is ' +
      "`422 invalid_channel` naming the field); a new target is checked like a new channel's.",
    method: 'patch',
    path: '/api/v1/admin/notifications/channels/{id}',
    summary: "Change a channel's target, events or digest threshold, or disable it",
    body: bodyOf(channelChangeRequest, 'ChannelChangeRequest'),
    success: [ok(200, 'The channel now.', answers.channelChangedSchema, 'ChannelChanged')],
    errors: [notFound, { status: 422, codes: ['invalid_target', 'target_not_allowed'] }],
  }),
  admin({
    operationId: 'testChannel',
    description:
      'Sends one test notification through the channel at once and answers its delivery; a failed one waits for ' +
      "the worker's retries, a disabled channel's is dead at once.",
    method: 'post',
    path: '/api/v1/admin/notifications/channels/{id}/test',
    summary: 'Send a test notification now',
    body: bodyOf(channelTestRequest, 'EmptyRequest'),
    success: [
      {
        status: 200,
        description: 'The delivery and its outcome (a failure is retried by the worker).',
        body: { json: delivery },
      },
    ],
    errors: [notFound],
  }),
  admin({
    operationId: 'retryDelivery',
    description:
      'Only a dead delivery (its retries spent, or its channel disabled): it becomes pending and due now, for ' +
      'the worker to send.',
    method: 'post',
    path: '/api/v1/admin/notifications/deliveries/{id}/retry',
    summary: 'Send a dead delivery again',
    body: bodyOf(deliveryRetryRequest, 'EmptyRequest'),
    success: [{ status: 200, description: 'The delivery, pending and due now.', body: { json: delivery } }],
    errors: [notFound, { status: 409, codes: ['not_dead'] }],
  }),
  admin({
    operationId: 'putNotificationSettings',
    description: "The whole settings document (as `GET /api/v1/admin/notifications` shows it) replaces the tenant's.",
    method: 'put',
    path: '/api/v1/admin/notifications/settings',
    summary: "Replace the tenant's notification settings",
    body: bodyOf(notificationSettingsRequest, 'NotificationSettings'),
    success: [ok(200, 'The settings now.', answers.settingsAnswerSchema, 'SettingsAnswer')],
  }),
  admin({
    operationId: 'putOversightSettings',
    description:
      "The rubber-stamp alarm (docs/oversight.md): admins are told once per person and week when an approver's " +
      'decisions of the last 7 days number at least `minDecisions`, are approved at `approvalRatePercent` or ' +
      'more, and were decided a median under `medianDwellSeconds` after first opening. 0 in any turns the alarm ' +
      'off. Audited as `tenant.settings_changed`.',
    method: 'put',
    path: '/api/v1/admin/oversight/settings',
    summary: "Replace the tenant's rubber-stamp alarm settings",
    body: bodyOf(oversightSettingsRequest, 'OversightSettings'),
    success: [ok(200, 'The settings now.', oversightSettingsAnswerSchema, 'OversightSettingsAnswer')],
  }),
  admin({
    operationId: 'getExecutions',
    description:
      'Whether the emergency stop is on, and if so who paused, when and why. Every member sees it as a banner.',
    method: 'get',
    path: '/api/v1/admin/executions',
    summary: "Whether the tenant's executions are paused (the emergency stop)",
    success: [ok(200, 'The stop state: who paused, when and why.', answers.executionsStateSchema, 'ExecutionsState')],
  }),
  admin({
    operationId: 'pauseExecutions',
    description:
      'Every approved command of the tenant waits: dispatch skips it, one that still reaches the executor ' +
      'answers `503 executions_paused` unconsumed, and no proposal expires meanwhile. Decisions stay open. ' +
      'Audited as `executions.paused`.',
    method: 'post',
    path: '/api/v1/admin/executions/pause',
    summary: 'Emergency stop: approved commands wait, nothing is dispatched, no expiry is counted',
    body: bodyOf(executionsPauseRequest, 'PauseRequest'),
    success: [
      ok(
        200,
        'The state now; `changed` is false when it was already paused.',
        answers.executionsChangedSchema,
        'ExecutionsChanged',
      ),
    ],
  }),
  admin({
    operationId: 'resumeExecutions',
    description:
      'Pending deadlines move on by the time paused and dispatch wakes; a command whose lifetime ran out ' +
      'meanwhile is minted again. Audited as `executions.resumed`.',
    method: 'post',
    path: '/api/v1/admin/executions/resume',
    summary: 'End the emergency stop: pending deadlines move on by the time paused, waiting commands go out',
    body: bodyOf(executionsResumeRequest, 'EmptyRequest'),
    success: [
      ok(
        200,
        'The state now; `changed` is false when it was not paused.',
        answers.executionsChangedSchema,
        'ExecutionsChanged',
      ),
    ],
  }),
  admin({
    operationId: 'getPolicies',
    method: 'get',
    path: policies,
    summary: "The tenant's routing policy: every action's newest version",
    description: 'Every member may read it.',
    access: 'session',
    success: [ok(200, 'The policy document.', answers.policyListSchema, 'PolicyList')],
    errors: [NO_MEMBERSHIP],
  }),
  admin({
    operationId: 'savePolicies',
    description:
      "The document `GET` answered, edited. Rules are checked with the router's own schema (422 with " +
      '`issues[].field`); each action whose rules changed gets a new version, which routes new proposals only. ' +
      "Someone else's save since your read is `409 stale_policy`. The top-level `note` (1–500 characters, not " +
      'blank) says why: it is stored with each version published and in its `policy.published` audit event.',
    method: 'put',
    path: policies,
    summary: 'Save the policy document: each changed action gets a new immutable version',
    body: bodyOf(policyJsonBody, 'PolicyDocument', { schema: policyDocumentSchema }),
    success: [
      ok(
        200,
        'The versions published, the actions left alone, and the document now.',
        answers.policySaveResultSchema,
        'PolicySaveResult',
      ),
    ],
    errors: [{ status: 409, codes: ['stale_policy'] }],
  }),
  admin({
    operationId: 'previewPolicy',
    description:
      'Routes a sample proposal (`sample.args`) through the draft rules with the real router, sums per resource ' +
      "from the tenant's proposals as of now; business rules such as `hold_limit` are not part of it.",
    method: 'post',
    path: `${policies}/preview`,
    summary: 'What a draft policy would do with a sample proposal (writes nothing)',
    body: bodyOf(policyJsonBody, 'PolicyPreviewRequest', {
      schema: policyPreviewSchema,
      invalidCode: 'invalid_preview',
    }),
    success: [ok(200, 'The routing the router itself computed.', answers.policyPreviewAnswerSchema, 'PolicyPreview')],
    errors: [{ status: 422, codes: ['sample_not_found'] }],
  }),
  admin({
    operationId: 'planPolicies',
    description:
      `The document \`PUT\` takes (\`note\` optional here), validated the same way (422 \`invalid_policy\`, ` +
      `409 \`stale_policy\`). Answers each changed action's change in words and a backtest: the tenant's ` +
      `proposals of those actions from the last \`days\` days (the ` +
      `newest ${BACKTEST_LIMIT.toLocaleString('en')} at most; \`truncated\` says when there were more) routed ` +
      `by the current policy and by the draft with the real router, listing each whose outcome, number of ` +
      `approvers or role would change, and \`warnings\`: each rule of a changed action whose description or id ` +
      `names an amount its bounds no longer have (ids are never renamed). Money bounds are worded in major ` +
      `units when the period's proposals name currencies with one number of decimals. Aggregate bounds are ` +
      `summed over the replayed proposals (statuses as they are now). Writes nothing.`,
    method: 'post',
    path: `${policies}/plan`,
    summary: 'Plan a policy change: the change in words and a backtest of recent proposals (writes nothing)',
    query: [
      {
        name: 'days',
        description: 'The backtest period in days, 1–365 (default 30); anything else is 422 `invalid_days`.',
      },
    ],
    body: bodyOf(policyJsonBody, 'PolicyDraft', { schema: policyDraftSchema }),
    success: [ok(200, 'The change in words and the backtest.', answers.policyPlanAnswerSchema, 'PolicyPlan')],
    errors: [
      { status: 409, codes: ['stale_policy'] },
      { status: 422, codes: ['invalid_days'] },
    ],
  }),
];
