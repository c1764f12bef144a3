/**
 * The resilience script's HTTP clients: an agent posting proposals with its key and an operator
 * with a next-auth session (GET csrf, POST the credentials callback, as docs/design.md §12 says).
 * Every answer is tallied by route and status; nothing of a body or a key is ever printed.
 */
import { sessionCookie } from '@/scripts/shared/session';

export type Answer<T = unknown> =
  | { status: number; body: T | undefined }
  | { status: 'no_answer'; body: undefined; error: string };

/** Status counts per route label, and the error codes of the 4xx answers. */
export class Tally {
  readonly statuses: Record<string, Record<string, number>> = {};
  readonly codes: Record<string, number> = {};

  record(route: string, status: number | 'no_answer', code?: string): void {
    const row = (this.statuses[route] ??= {});
    row[String(status)] = (row[String(status)] ?? 0) + 1;
    if (code) this.codes[`${route} ${status} ${code}`] = (this.codes[`${route} ${status} ${code}`] ?? 0) + 1;
  }

  count(predicate: (status: string) => boolean): number {
    return Object.values(this.statuses).reduce(
      (sum, row) => sum + Object.entries(row).reduce((n, [status, c]) => n + (predicate(status) ? c : 0), 0),
      0,
    );
  }

  get serverErrors(): number {
    return this.count((status) => status.startsWith('5'));
  }

  get unanswered(): number {
    return this.count((status) => status === 'no_answer');
  }

  get total(): number {
    return this.count(() => true);
  }
}

const REQUEST_TIMEOUT_MS = 30_000;

async function call<T>(tally: Tally, route: string, url: string, init: RequestInit): Promise<Answer<T>> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (error) {
    tally.record(route, 'no_answer');
    return { status: 'no_answer', body: undefined, error: error instanceof Error ? error.name : 'error' };
  }
  const body = (await response.json().catch(() => undefined)) as T | undefined;
  const code = (body as { error?: { code?: unknown } } | undefined)?.error?.code;
  tally.record(route, response.status, response.status >= 400 && typeof code === 'string' ? code : undefined);
  return { status: response.status, body };
}

export type ProposalAnswer = { proposal?: { id: string; status: string; payloadHash: string } };
export type DetailAnswer = { id: string; status: string; payloadHash: string };

export type ProposalRequest = {
  requestId: string;
  action: 'issue_refund' | 'hold_stock';
  args: Record<string, unknown>;
  evidenceRefs: string[];
};

export function proposalBody(request: ProposalRequest): string {
  return JSON.stringify({
    requestId: request.requestId,
    action: request.action,
    contractVersion: 1,
    args: request.args,
    evidenceRefs: request.evidenceRefs,
  });
}

/** `POST /api/v1/proposals` with an agent key. */
export function propose(
  tally: Tally,
  appUrl: string,
  key: string,
  request: ProposalRequest,
): Promise<Answer<ProposalAnswer>> {
  return call<ProposalAnswer>(tally, 'POST /api/v1/proposals', `${appUrl}/api/v1/proposals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: proposalBody(request),
  });
}

export type Operator = {
  email: string;
  decide(proposalId: string, payloadHash: string, decision: 'approve' | 'reject'): Promise<Answer<DetailAnswer>>;
  revise(proposalId: string, args: Record<string, unknown>): Promise<Answer<DetailAnswer>>;
};

/** Signs in through next-auth's own flow and answers an operator acting with that session. */
export async function signIn(tally: Tally, appUrl: string, email: string, password: string): Promise<Operator> {
  const session = await sessionCookie(appUrl, email, password, REQUEST_TIMEOUT_MS);
  if (!session) throw new Error(`sign-in as ${email} gave no session`);
  const headers = { cookie: session, origin: appUrl, 'content-type': 'application/json' };
  return {
    email,
    decide: (proposalId, payloadHash, decision) =>
      call<DetailAnswer>(
        tally,
        'POST /api/v1/proposals/:id/decisions',
        `${appUrl}/api/v1/proposals/${proposalId}/decisions`,
        {
          method: 'POST',
          headers,
          body: JSON.stringify(
            decision === 'approve'
              ? { decision, payloadHash }
              : { decision, payloadHash, reason: 'Needs more evidence' },
          ),
        },
      ),
    revise: (proposalId, args) =>
      call<DetailAnswer>(
        tally,
        'POST /api/v1/proposals/:id/revisions',
        `${appUrl}/api/v1/proposals/${proposalId}/revisions`,
        {
          method: 'POST',
          headers,
          body: JSON.stringify({ args, reason: 'Resilience run: edited before deciding' }),
        },
      ),
  };
}
