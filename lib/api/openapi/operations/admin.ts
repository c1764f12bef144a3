import type { z } from 'zod';
import { agentKeyCreateRequest, agentKeyRevokeRequest, agentKeyRotateRequest } from '@/lib/admin/agent-key-requests';
import { executionsPauseRequest, executionsResumeRequest } from '@/lib/commands/executions-requests';
import { acceptRequest, deletionRequest, emailCodeCheckRequest, emailCodeRequest, invitationRequest, roleChangeRequest } from '@/lib/admin/requests';
import * as answers from '@/lib/api/responses/admin';
import { contractStatusRequest } from '@/lib/contracts/requests';
import { channelChangeRequest, channelCreateRequest, channelTestRequest, deliveryRetryRequest, notificationSettingsRequest } from '@/lib/notifications/requests';
import { policyDocumentSchema, policyJsonBody, policyPreviewSchema } from '@/lib/policy/requests';
import { component } from '../components';
import { bodyOf, type ErrorCase, type Operation, type Success } from '../operation';
import { NO_MEMBERSHIP } from './reads';

/** Admin answers carry `Date`s written as ISO strings: their wire form is the codecs' input side (responses/admin.ts). */
const answer = (schema: z.ZodType, id: string) => component(schema, id, 'input');
const ok = (status: number, description: string, schema: z.ZodType, id: string): Success => ({ status, description, body: { json: answer(schema, id) } });
const notFound: ErrorCase = { status: 404, codes: ['not_found'] };

type AdminOperation = Omit<Operation, 'tag' | 'access'> & { access?: Operation['access'] };
const admin = (operation: AdminOperation): Operation => ({ tag: 'Admin API', access: 'admin', ...operation });

const key = answer(answers.issuedAgentKeySchema, 'IssuedAgentKey');
const delivery = answer(answers.deliveryAnswerSchema, 'DeliveryAnswer');
const policies = '/api/v1/admin/policies';

/** The admin API (docs/operators.md, "Administration in the dashboard"): the tenant is the one the dashboard shows, never the body's. */
export const adminOperations: Operation[] = [
  admin({ operationId: 'listAgentKeys', method: 'get', path: '/api/v1/admin/agent-keys', summary: "The tenant's agent keys (never a key or its hash)", success: [ok(200, 'The keys, with their state now.', answers.agentKeyListSchema, 'AgentKeyList')] }),
  admin({ operationId: 'issueAgentKey', method: 'post', path: '/api/v1/admin/agent-keys', summary: 'Issue an agent key',
    body: bodyOf(agentKeyCreateRequest, 'AgentKeyRequest'), success: [{ status: 201, description: 'The key itself is in this answer and never again.', body: { json: key } }] }),
  admin({ operationId: 'revokeAgentKey', method: 'post', path: '/api/v1/admin/agent-keys/{id}/revoke', summary: 'Revoke an agent key at once',
    body: bodyOf(agentKeyRevokeRequest, 'EmptyRequest'), success: [ok(200, 'The revoked key.', answers.revokedAgentKeySchema, 'RevokedAgentKey')], errors: [notFound, { status: 409, codes: ['already_revoked'] }] }),
  admin({ operationId: 'rotateAgentKey', method: 'post', path: '/api/v1/admin/agent-keys/{id}/rotate', summary: 'Replace an agent key; the old one works for `overlapMinutes` more',
    body: bodyOf(agentKeyRotateRequest, 'RotationRequest'), success: [{ status: 201, description: 'The new key, shown once.', body: { json: key } }], errors: [notFound, { status: 409, codes: ['already_revoked', 'already_rotated'] }] }),
  admin({ operationId: 'listContractRollout', method: 'get', path: '/api/v1/admin/contracts', summary: "Each action's contract versions, their statuses and senders", success: [ok(200, 'The rollout.', answers.contractRolloutListSchema, 'ContractRolloutList')] }),
  admin({ operationId: 'setContractStatus', method: 'post', path: '/api/v1/admin/contracts/{action}/{version}', summary: 'Move a contract version (shadow, current, supported with a sunset, retired)',
    body: bodyOf(contractStatusRequest, 'ContractStatusRequest'), success: [ok(200, 'Whether anything changed, and the action now.', answers.contractStatusChangedSchema, 'ContractStatusChanged')], errors: [notFound, { status: 409, codes: ['invalid_transition', 'cannot_retire_current', 'cannot_demote_current', 'retired_needs_reinstatement'] }, { status: 422, codes: ['sunset_requires_supported', 'sunset_in_past'] }] }),
  admin({ operationId: 'listMembers', method: 'get', path: '/api/v1/admin/members', summary: 'Members and pending invitations (never a token)', success: [ok(200, 'Members and invitations.', answers.memberListSchema, 'MemberList')] }),
  admin({ operationId: 'inviteMember', method: 'post', path: '/api/v1/admin/members', summary: 'Invite someone by email',
    body: bodyOf(invitationRequest, 'InvitationRequest'), success: [ok(201, 'The one-time link is in this answer and never again.', answers.invitationCreatedSchema, 'InvitationCreated')], errors: [{ status: 409, codes: ['already_member'] }] }),
  admin({ operationId: 'changeMemberRole', method: 'patch', path: '/api/v1/admin/members/{userId}', summary: "Change a member's role (from their next request)",
    body: bodyOf(roleChangeRequest, 'RoleChangeRequest'), success: [ok(200, 'The new and the previous role.', answers.roleChangedSchema, 'RoleChanged')], errors: [notFound, { status: 409, codes: ['last_admin'] }] }),
  admin({ operationId: 'removeMember', method: 'delete', path: '/api/v1/admin/members/{userId}', summary: 'Remove a member and end their sessions',
    body: bodyOf(deletionRequest, 'EmptyRequest'), success: [ok(200, 'Who was removed.', answers.memberRemovedSchema, 'MemberRemoved')], errors: [notFound, { status: 409, codes: ['last_admin'] }] }),
  admin({ operationId: 'cancelInvitation', method: 'delete', path: '/api/v1/admin/members/invitations/{id}', summary: 'Cancel a pending invitation',
    body: bodyOf(deletionRequest, 'EmptyRequest'), success: [ok(200, 'The cancelled invitation.', answers.invitationCancelledSchema, 'InvitationCancelled')], errors: [notFound] }),
  { operationId: 'acceptInvitation', method: 'post', path: '/api/v1/invitations/accept', tag: 'Public', summary: 'Accept an invitation (the token makes a new account; an existing one joins only with its own session)', access: 'public',
    description: 'Without a session: a new account with a password or single sign-on, confined to this tenant until its address is proven; an address that has an account is told to sign in (`sign_in_required`), and the token alone is always `password_required`. With a session of the invited address: nothing but the token. Every attempt counts at the client address in the sign-in throttle until one succeeds; an address over its limit is answered `429 too_many_attempts` with `Retry-After`, as sign-in is.',
    body: bodyOf(acceptRequest, 'AcceptRequest'), success: [ok(200, 'Whom the invitation was for and how they sign in now.', answers.invitationAcceptedSchema, 'InvitationAccepted')],
    errors: [{ status: 403, codes: ['invitation_for_another_address'] }, { status: 404, codes: ['invitation_not_found'] }, { status: 409, codes: ['sign_in_required', 'already_member', 'address_unverified'] }, { status: 410, codes: ['invitation_used', 'invitation_expired'] }, { status: 422, codes: ['password_required', 'sso_unavailable', 'signed_in'] }] },
  { operationId: 'sendEmailCode', method: 'post', path: '/api/v1/account/email-code', tag: 'Operator API', summary: "Email a code to the signed-in person's own address (through the operator's SMTP_URL)", access: 'session',
    description: 'A server without SMTP_URL answers `503 email_unavailable`; an SMTP server that refuses, `502 email_not_sent`.',
    body: bodyOf(emailCodeRequest, 'EmptyRequest'), success: [ok(200, 'Where the code went (the code is only in the email).', answers.emailCodeSentSchema, 'EmailCodeSent')],
    errors: [{ status: 409, codes: ['already_verified'] }, { status: 429, codes: ['code_recently_sent'], headers: ['Retry-After'] }] },
  { operationId: 'verifyEmailCode', method: 'post', path: '/api/v1/account/email-code/verify', tag: 'Operator API', summary: "Prove the signed-in person's address with the emailed code (15 minutes, 5 tries, once)", access: 'session',
    body: bodyOf(emailCodeCheckRequest, 'EmailCodeCheck'), success: [ok(200, 'When the address was proven.', answers.emailVerifiedSchema, 'EmailVerified')],
    errors: [{ status: 410, codes: ['code_expired'] }, { status: 422, codes: ['code_wrong'] }, { status: 429, codes: ['code_attempts_exhausted'] }] },
  admin({ operationId: 'getNotifications', method: 'get', path: '/api/v1/admin/notifications', summary: 'Notification settings, channels (no secrets) and the last 50 deliveries',
    success: [ok(200, 'Settings, channels and deliveries.', answers.notificationsOverviewSchema, 'NotificationsOverview')] }),
  admin({ operationId: 'createChannel', method: 'post', path: '/api/v1/admin/notifications/channels', summary: 'Add a notification channel',
    body: bodyOf(channelCreateRequest, 'ChannelRequest'), success: [ok(201, "A webhook's signing secret is in this answer and never again.", answers.channelCreatedSchema, 'ChannelCreated')], errors: [{ status: 422, codes: ['target_not_allowed'] }] }),
  admin({ operationId: 'changeChannel', method: 'patch', path: '/api/v1/admin/notifications/channels/{id}', summary: "Change a channel's target or events, or disable it",
    body: bodyOf(channelChangeRequest, 'ChannelChangeRequest'), success: [ok(200, 'The channel now.', answers.channelChangedSchema, 'ChannelChanged')], errors: [notFound, { status: 422, codes: ['invalid_target', 'target_not_allowed'] }] }),
  admin({ operationId: 'testChannel', method: 'post', path: '/api/v1/admin/notifications/channels/{id}/test', summary: 'Send a test notification now',
    body: bodyOf(channelTestRequest, 'EmptyRequest'), success: [{ status: 200, description: 'The delivery and its outcome (a failure is retried by the worker).', body: { json: delivery } }], errors: [notFound] }),
  admin({ operationId: 'retryDelivery', method: 'post', path: '/api/v1/admin/notifications/deliveries/{id}/retry', summary: 'Send a dead delivery again',
    body: bodyOf(deliveryRetryRequest, 'EmptyRequest'), success: [{ status: 200, description: 'The delivery, pending and due now.', body: { json: delivery } }], errors: [notFound, { status: 409, codes: ['not_dead'] }] }),
  admin({ operationId: 'putNotificationSettings', method: 'put', path: '/api/v1/admin/notifications/settings', summary: "Replace the tenant's notification settings",
    body: bodyOf(notificationSettingsRequest, 'NotificationSettings'), success: [ok(200, 'The settings now.', answers.settingsAnswerSchema, 'SettingsAnswer')] }),
  admin({ operationId: 'getExecutions', method: 'get', path: '/api/v1/admin/executions', summary: "Whether the tenant's executions are paused (the emergency stop)",
    success: [ok(200, 'The stop state: who paused, when and why.', answers.executionsStateSchema, 'ExecutionsState')] }),
  admin({ operationId: 'pauseExecutions', method: 'post', path: '/api/v1/admin/executions/pause', summary: "Emergency stop: approved commands wait, nothing is dispatched, no expiry is counted",
    body: bodyOf(executionsPauseRequest, 'PauseRequest'), success: [ok(200, 'The state now; `changed` is false when it was already paused.', answers.executionsChangedSchema, 'ExecutionsChanged')] }),
  admin({ operationId: 'resumeExecutions', method: 'post', path: '/api/v1/admin/executions/resume', summary: 'End the emergency stop: pending deadlines move on by the time paused, waiting commands go out',
    body: bodyOf(executionsResumeRequest, 'EmptyRequest'), success: [ok(200, 'The state now; `changed` is false when it was not paused.', answers.executionsChangedSchema, 'ExecutionsChanged')] }),
  admin({ operationId: 'getPolicies', method: 'get', path: policies, summary: "The tenant's routing policy: every action's newest version", description: 'Every member may read it.', access: 'session',
    success: [ok(200, 'The policy document.', answers.policyListSchema, 'PolicyList')], errors: [NO_MEMBERSHIP] }),
  admin({ operationId: 'savePolicies', method: 'put', path: policies, summary: 'Save the policy document: each changed action gets a new immutable version',
    body: bodyOf(policyJsonBody, 'PolicyDocument', { schema: policyDocumentSchema }), success: [ok(200, 'The versions published, the actions left alone, and the document now.', answers.policySaveResultSchema, 'PolicySaveResult')], errors: [{ status: 409, codes: ['stale_policy'] }] }),
  admin({ operationId: 'previewPolicy', method: 'post', path: `${policies}/preview`, summary: 'What a draft policy would do with a sample proposal (writes nothing)',
    body: bodyOf(policyJsonBody, 'PolicyPreviewRequest', { schema: policyPreviewSchema, invalidCode: 'invalid_preview' }), success: [ok(200, 'The routing the router itself computed.', answers.policyPreviewAnswerSchema, 'PolicyPreview')], errors: [{ status: 422, codes: ['sample_not_found'] }] }),
];
