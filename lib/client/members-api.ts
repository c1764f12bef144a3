import type { AcceptInput, InvitationInput, RoleChange } from '@/lib/admin/requests';
import { type ApiResult, call, sendJson } from './operator-api';

/**
 * The dashboard's client for Settings → Members (`/api/v1/admin/members`) and for accepting an
 * invitation, through the same `call` as every operator request. Client-safe: types only.
 */

export type MemberRole = RoleChange['role'];

/** A member as the list shows them; dates as ISO strings. */
export type MemberView = { userId: string; name: string; email: string; role: MemberRole; joinedAt: string };

/** A pending invitation (never its token). */
export type PendingInvitationView = {
  id: string;
  email: string;
  name: string;
  role: MemberRole;
  expiresAt: string;
  createdAt: string;
};

export type MembersView = { members: MemberView[]; invitations: PendingInvitationView[] };

const BASE = '/api/v1/admin/members';
const DELETE: RequestInit = { method: 'DELETE' };

export function fetchMembers(): Promise<ApiResult<MembersView>> {
  return call(BASE, { headers: { accept: 'application/json' } }, 'The members could not be loaded');
}

/** Invites someone; `invitationUrl` is the one-time link, shown this once. */
export function inviteMember(
  input: InvitationInput,
): Promise<ApiResult<{ invitationUrl: string; invitation: PendingInvitationView }>> {
  return call(BASE, sendJson(input), 'The invitation was not created');
}

export function changeMemberRole(
  userId: string,
  role: MemberRole,
): Promise<ApiResult<{ member: { userId: string; role: MemberRole } }>> {
  return call(`${BASE}/${encodeURIComponent(userId)}`, sendJson({ role }, 'PATCH'), 'The role was not changed');
}

export function removeMember(userId: string): Promise<ApiResult<{ removed: { userId: string; role: string } }>> {
  return call(`${BASE}/${encodeURIComponent(userId)}`, DELETE, 'The member was not removed');
}

export function cancelInvitation(invitationId: string): Promise<ApiResult<{ invitation: PendingInvitationView }>> {
  return call(`${BASE}/invitations/${encodeURIComponent(invitationId)}`, DELETE, 'The invitation was not cancelled');
}

/** How the person signs in afterwards: with the password just chosen, single sign-on, or as before. */
export type Accepted = { email: string; tenantName: string; role: MemberRole; signIn: 'password' | 'sso' | 'existing' };

export function acceptInvitation(input: AcceptInput): Promise<ApiResult<Accepted>> {
  return call('/api/v1/invitations/accept', sendJson(input), 'The invitation was not accepted');
}

/** Emails a code to the address the invitation names (the first step of accepting it). */
export function sendInvitationCode(token: string): Promise<ApiResult<{ sentTo: string }>> {
  return call('/api/v1/invitations/code', sendJson({ token }), 'The code was not sent');
}
