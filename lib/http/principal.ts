import 'server-only';
import type { Database } from '@/db';
import type { Role } from '@/db/schema';
import { authenticateAgent, type AgentPrincipal } from '@/lib/agents/authenticate';
import { auth } from '@/lib/auth';
import { loadOperator, type Operator } from '@/lib/auth/operator';
import { chosenMembership } from '@/lib/dashboard/context';
import { tenantOfProposal } from '@/lib/proposals/lookup';
import { ApiError, unauthenticated } from './errors';

export type Principal = { kind: 'agent'; agent: AgentPrincipal } | { kind: 'operator'; operator: Operator };

/** Agent API routes: a valid bearer key and nothing else (a session cookie grants nothing here). */
export async function requireAgent(db: Database, request: Request): Promise<AgentPrincipal> {
  const agent = await authenticateAgent(db, request);
  if (!agent) throw unauthenticated('Send a valid, unrevoked agent key as "Authorization: Bearer <key>".');
  return agent;
}

/** Operator routes: a session only; an agent key never opens the dashboard's powers. */
export async function requireOperator(db: Database): Promise<Operator> {
  const session = await auth();
  const operator = session?.operatorId ? await loadOperator(db, session.operatorId) : undefined;
  if (!operator) throw unauthenticated('Sign in to the dashboard first.');
  return operator;
}

/**
 * Operator routes an agent must never reach (evidence bundles): an Authorization header is an
 * agent's and is refused with 401 even beside a session cookie, so a key never rides along.
 */
export async function requireOperatorWithoutKey(db: Database, request: Request): Promise<Operator> {
  if (request.headers.has('authorization')) throw unauthenticated('Agent keys cannot read this; sign in to the dashboard.');
  return requireOperator(db);
}

/** A member acting in the tenant they are looking at in the dashboard, with their role there. */
export type Member = { operator: Operator; tenantId: string; tenantName: string; role: Role };

/**
 * Tenant-wide read routes (history, export, checkpoints): a session and no agent key (401) and a membership
 * in the tenant the dashboard shows, read from the database on this request.
 */
export async function requireMember(db: Database, request: Request): Promise<Member> {
  const operator = await requireOperatorWithoutKey(db, request);
  const membership = await chosenMembership(operator);
  if (!membership) throw new ApiError(403, 'forbidden', 'forbidden', 'You are not a member of any tenant.');
  return { operator, ...membership };
}

/** An admin acting in the tenant they are looking at in the dashboard. */
export type Admin = { operator: Operator; tenantId: string; tenantName: string };

/**
 * Admin routes: a session (401 without), and the admin role in the tenant the dashboard shows
 * (the `cs_tenant` cookie among the person's memberships, else the first), read from the database
 * on this request; anyone else is refused with 403 `forbidden`. Tenant and role never come from the body.
 */
export async function requireAdmin(db: Database): Promise<Admin> {
  const operator = await requireOperator(db);
  const membership = await chosenMembership(operator);
  if (membership?.role !== 'admin') throw new ApiError(403, 'forbidden', 'forbidden', 'Only an admin of this tenant may do this.');
  return { operator, tenantId: membership.tenantId, tenantName: membership.tenantName };
}

/** Routes open to both: an Authorization header means an agent, and only an agent. */
export async function requirePrincipal(db: Database, request: Request): Promise<Principal> {
  if (request.headers.has('authorization')) return { kind: 'agent', agent: await requireAgent(db, request) };
  return { kind: 'operator', operator: await requireOperator(db) };
}

/**
 * The tenant in which this principal may read a proposal: the key's own tenant for an agent; for
 * an operator, the proposal's tenant only if they are a member. Undefined reads as not found.
 */
export async function readableTenant(db: Database, principal: Principal, proposalId: string): Promise<string | undefined> {
  if (principal.kind === 'agent') return principal.agent.tenantId;
  const tenantId = await tenantOfProposal(db, proposalId);
  return principal.operator.memberships.some((m) => m.tenantId === tenantId) ? tenantId : undefined;
}
