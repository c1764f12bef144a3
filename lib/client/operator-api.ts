import type { DecisionRequest, ReproposeRequest, RevisionRequest } from '@/lib/decisions/requests';
import type { FreshFacts } from '@/lib/proposals/fresh-facts';
import { type QueuePage, type QueueView, queueViewSearch } from '@/lib/shared/queue-view';

/**
 * The dashboard's one client for the operator API (docs/design.md §12): every fetch a component makes
 * goes through here. Ids are always encoded; a refusal or a network failure comes back as a value
 * (`{ok: false, problem}`), never a throw, with the server's code, words and field issues.
 * Client-safe: it imports only types and the queue's URL helpers.
 */

export type FieldProblem = { field: string; code: string; expected: string; received: string; message: string };

/** A refusal: the HTTP status (0 when the request never reached the server), a code and words. */
export type ApiProblem = { status: number; code: string; message: string; issues: FieldProblem[] };

export type ApiResult<T> = { ok: true; value: T } | { ok: false; problem: ApiProblem };

/** The part of a proposal's JSON a component reads after a mutation. */
export type ProposalResult = { id: string; status: string };

/** After a decision: also how many approvals the rule needs and the decisions so far. */
export type DecisionAnswer = ProposalResult & {
  routing: { approvals: number };
  decisions: { decision: 'approve' | 'reject' }[];
};

type ErrorBody = { error?: { code?: unknown; message?: unknown; issues?: unknown } };

const NETWORK: ApiProblem = {
  status: 0,
  code: 'network',
  message: 'The request did not reach the server; check the connection and try again.',
  issues: [],
};

const proposalPath = (
  proposalId: string,
  verb: 'decisions' | 'extend' | 'revisions' | 'repropose-request' | 'recheck',
) => `/api/v1/proposals/${encodeURIComponent(proposalId)}/${verb}`;

function problemOf(status: number, body: unknown, fallback: string): ApiProblem {
  const error = (body as ErrorBody | null)?.error;
  return {
    status,
    code: typeof error?.code === 'string' ? error.code : `http_${status}`,
    message:
      typeof error?.message === 'string'
        ? error.message
        : status === 401
          ? 'Your session has ended; sign in again.'
          : `${fallback} (HTTP ${status}).`,
    issues: Array.isArray(error?.issues) ? (error.issues as FieldProblem[]) : [],
  };
}

/** One request; `fallback` words a refusal whose body says nothing ("The decision was not recorded"). */
export async function call<T>(path: string, init: RequestInit, fallback: string): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch {
    return { ok: false, problem: NETWORK };
  }
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok || body === null) return { ok: false, problem: problemOf(response.status, body, fallback) };
  return { ok: true, value: body as T };
}

/** A JSON request with `method` (POST by default); the browser adds the same-origin `Origin` the server checks. */
export const sendJson = (body: unknown, method: 'POST' | 'PATCH' | 'PUT' = 'POST'): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const postJson = (body: unknown) => sendJson(body);

/** Approve or reject, binding the payload hash the person saw. */
export function postDecision(proposalId: string, request: DecisionRequest): Promise<ApiResult<DecisionAnswer>> {
  return call(proposalPath(proposalId, 'decisions'), postJson(request), 'The decision was not recorded');
}

/** The rubber-stamp alarm's settings (admins); 0 in any turns it off. */
export type OversightSettingsInput = { minDecisions: number; approvalRatePercent: number; medianDwellSeconds: number };

export function putOversightSettings(
  settings: OversightSettingsInput,
): Promise<ApiResult<{ settings: OversightSettingsInput }>> {
  return call('/api/v1/admin/oversight/settings', sendJson(settings, 'PUT'), 'The settings were not saved');
}

/** Extend a pending proposal once, by its original duration. */
export function postExtension(proposalId: string): Promise<ApiResult<ProposalResult>> {
  return call(proposalPath(proposalId, 'extend'), postJson({}), 'The proposal was not extended');
}

/**
 * Read the proposal's facts again from the system of record (bounded, shared a few seconds): at proposal beside now.
 */
export function postRecheck(proposalId: string): Promise<ApiResult<FreshFacts>> {
  return call(proposalPath(proposalId, 'recheck'), postJson({}), 'The facts could not be checked');
}

/** Edit the arguments: a new revision that replaces the proposal (201 with the revision). */
export function postRevision(proposalId: string, request: RevisionRequest): Promise<ApiResult<ProposalResult>> {
  return call(proposalPath(proposalId, 'revisions'), postJson(request), 'The revision was not created');
}

/** Ask the agent to propose a stale (or changed) proposal again; once per proposal. */
export function postReproposeRequest(
  proposalId: string,
  request: ReproposeRequest,
): Promise<ApiResult<{ reproposal: { requestedAt: string } }>> {
  return call(proposalPath(proposalId, 'repropose-request'), postJson(request), 'The agent was not asked');
}

/**
 * One page of a tenant's queue in a view (its group as this person sees it); `cursor` is the previous page's
 * `nextCursor`. A 401 means the session ended.
 */
export async function fetchQueuePage(
  tenantId: string,
  view: QueueView,
  cursor: string | null,
): Promise<ApiResult<QueuePage>> {
  const search = new URLSearchParams(queueViewSearch(view));
  search.set('tenant', tenantId);
  if (cursor) search.set('cursor', cursor);
  return call(`/api/v1/queue?${search.toString()}`, { headers: { accept: 'application/json' } }, 'No reason was given');
}

/** A refusal as an Error, for react-query's mutation and query error state. */
export class OperatorApiError extends Error {
  constructor(readonly problem: ApiProblem) {
    super(problem.message);
    this.name = 'OperatorApiError';
  }
}

/** The value, or the problem thrown as an OperatorApiError (for react-query functions). */
export function valueOrThrow<T>(result: ApiResult<T>): T {
  if (!result.ok) throw new OperatorApiError(result.problem);
  return result.value;
}
