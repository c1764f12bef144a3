import type { Role } from '@/db/schema';

const RANK: Record<Role, number> = { viewer: 0, approver: 1, admin: 2 };

/** Admins may do what approvers may, approvers what viewers may. */
export function roleAtLeast(role: Role, needed: Role): boolean {
  return RANK[role] >= RANK[needed];
}

export const ROLES: readonly Role[] = ['viewer', 'approver', 'admin'];
