import type { MemberRole } from '@/lib/client/members-api';

/** The roles, lowest first, with what each may do (Settings → Members and invitation pages). */
export const ROLE_ORDER: readonly MemberRole[] = ['viewer', 'approver', 'admin'];

export const ROLE_ABOUT: Record<MemberRole, string> = {
  viewer: 'you see the queue, proposals and their history, but decide nothing',
  approver: 'you approve or reject what agents propose',
  admin: 'you decide proposals and manage members, agents and notifications',
};
