import type { z } from 'zod';
import { agentKeyCreateRequest, agentKeyRevokeRequest, agentKeyRotateRequest } from '@/lib/admin/agent-key-requests';
import { acceptRequest, deletionRequest, invitationRequest, roleChangeRequest } from '@/lib/admin/requests';
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

/** The admin API (README "Administration in the dashboard"): the tenant is the one the dashboard shows, never the body's. */
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
  { operationId: 'acceptInvitation', method: 'post', path: '/api/v1/invitations/accept', tag: 'Public', summary: 'Accept an invitation (the token from the link is the credential)', access: 'public',
    body: bodyOf(acceptRequest, 'AcceptRequest'), success: [ok(200, 'Whom the invitation was for and how they sign in now.', answers.invitationAcceptedSchema, 'InvitationAccepted')], errors: [{ status: 404, codes: ['invitation_not_found'] }, { status: 409, codes: ['account_exists', 'already_member'] }, { status: 410, codes: ['invitation_used', 'invitation_expired'] }, { status: 422, codes: ['password_required', 'sso_unavailable'] }] },
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
  admin({ operationId: 'getPolicies', method: 'get', path: policies, summary: "The tenant's routing policy: every action's newest version", description: 'Every member may read it.', access: 'session',
    success: [ok(200, 'The policy document.', answers.policyListSchema, 'PolicyList')], errors: [NO_MEMBERSHIP] }),
  admin({ operationId: 'savePolicies', method: 'put', path: policies, summary: 'Save the policy document: each changed action gets a new immutable version',
    body: bodyOf(policyJsonBody, 'PolicyDocument', { schema: policyDocumentSchema }), success: [ok(200, 'The versions published, the actions left alone, and the document now.', answers.policySaveResultSchema, 'PolicySaveResult')], errors: [{ status: 409, codes: ['stale_policy'] }] }),
  admin({ operationId: 'previewPolicy', method: 'post', path: `${policies}/preview`, summary: 'What a draft policy would do with a sample proposal (writes nothing)',
    body: bodyOf(policyJsonBody, 'PolicyPreviewRequest', { schema: policyPreviewSchema, invalidCode: 'invalid_preview' }), success: [ok(200, 'The routing the router itself computed.', answers.policyPreviewAnswerSchema, 'PolicyPreview')], errors: [{ status: 422, codes: ['sample_not_found'] }] }),
];
