import 'server-only';
import type { Database } from '@/db';
import type { Role } from '@/db/schema';
import { type AgentPrincipal, authenticateAgent } from '@/lib/agents/authenticate';
import { currentOperator, type Operator } from '@/lib/auth/operator';
import { currentViewer, type Viewer } from '@/lib/auth/viewer';
import { Refusal } from '@/lib/errors/refusal';
import { tenantOfProposal } from '@/lib/proposals/lookup';
import { unauthenticated } from './errors';

/** Who calls a route open to both: an agent (its key), or a person with the tenant they are looking at. */
export type Principal = { kind: 'agent'; agent: AgentPrincipal } | ({ kind: 'operator' } & Viewer);

/** Agent API routes: a valid bearer key and nothing else (a session cookie grants nothing here). */
export async function requireAgent(db: Database, request: Request): Promise<AgentPrincipal> {
  const agent = await authenticateAgent(db, request);
  if (!agent) throw unauthenticated('Send a valid, unrevoked agent key as "Authorization: Bearer <key>".');
  return agent;
}

/** Routes that act in no tenant in view (one proposal, the person's own account): a session only. */
export async function requireOperator(): Promise<Operator> {
  const operator = await currentOperator();
  if (!operator) throw unauthenticated('Sign in to the dashboard first.');
  return operator;
}

/**
 * Operator routes: a session only (the viewer, lib/auth/viewer.ts); an agent key never opens the dashboard's powers.
 */
export async function requireViewer(): Promise<Viewer> {
  const viewer = await currentViewer();
  if (!viewer) throw unauthenticated('Sign in to the dashboard first.');
  return viewer;
}

/**
 * Operator reads an agent must never reach (evidence bundles, the audit trail, the queue): an
 * Authorization header is an agent's and is refused with 401 even beside a session cookie, so a
 * key never rides along.
 */
export async function requireViewerWithoutKey(request: Request): Promise<Viewer> {
  if (request.headers.has('authorization'))
    throw unauthenticated('Agent keys cannot read this; sign in to the dashboard.');
  return requireViewer();
}

/** A member acting in the tenant they are looking at in the dashboard, with their role there. */
export type Member = { operator: Operator; tenantId: string; tenantName: string; role: Role };

/**
 * Tenant-wide reads (history, export, checkpoints, policies): a session and no agent key (401) and
 * a membership in the tenant the viewer is looking at, read from the database on this request.
 */
export async function requireMember(request: Request): Promise<Member> {
  const { operator, membership } = await requireViewerWithoutKey(request);
  if (!membership) throw new Refusal('forbidden', 'You are not a member of any tenant.');
  return { operator, ...membership };
}

/** An admin acting in the tenant they are looking at in the dashboard. */
export type Admin = { operator: Operator; tenantId: string; tenantName: string };

/**
 * Admin routes: a session (401 without), and the admin role in the tenant the viewer is looking
 * at, read from the database on this request; anyone else is refused with 403 `forbidden`. Tenant
 * and role never come from the body.
 */
export async function requireAdmin(): Promise<Admin> {
  const { operator, membership } = await requireViewer();
  if (membership?.role !== 'admin') throw new Refusal('forbidden', 'Only an admin of this tenant may do this.');
  return { operator, tenantId: membership.tenantId, tenantName: membership.tenantName };
}

/** Routes open to both: an Authorization header means an agent, and only an agent. */
export async function requirePrincipal(db: Database, request: Request): Promise<Principal> {
  if (request.headers.has('authorization')) return { kind: 'agent', agent: await requireAgent(db, request) };
  return { kind: 'operator', ...(await requireViewer()) };
}

/**
 * The tenant in which this principal may read a proposal: the key's own tenant for an agent; for
 * an operator, the proposal's tenant only if they are a member. Undefined reads as not found.
 */
export async function readableTenant(
  db: Database,
  principal: Principal | { kind: 'operator'; operator: Operator },
  proposalId: string,
): Promise<string | undefined> {
  if (principal.kind === 'agent') return principal.agent.tenantId;
  const tenantId = await tenantOfProposal(db, proposalId);
  return principal.operator.memberships.some((m) => m.tenantId === tenantId) ? tenantId : undefined;
}
