/**
 * A typed client for Countersign's agent API (docs/design.md §4): propose, read, and wait for a decision
 * with backoff and a deadline. Errors are values, never exceptions: every call answers a `Result`.
 * It depends on nothing but `fetch`, so it runs in Node 20+, Deno, Bun and edge runtimes.
 *
 * Beside it, the helpers for a team's own services (docs/executors.md): `verifyCommand`,
 * `verifyRequest`, and the resolver and executor handlers. They use `jose` and `canonicalize`.
 */

export type ProposalStatus =
  | 'pending_approval'
  | 'approved'
  | 'executing'
  | 'succeeded'
  | 'failed'
  | 'outcome_unknown'
  | 'rejected'
  | 'expired'
  | 'stale'
  | 'cancelled';

/** Statuses a proposal never leaves. `outcome_unknown` is not one: reconciliation settles it. */
export const FINAL_STATUSES: readonly ProposalStatus[] = [
  'succeeded',
  'failed',
  'rejected',
  'expired',
  'stale',
  'cancelled',
];

export type ProposeInput = {
  /** Your idempotency key: a retry with the same key and payload answers the same proposal. */
  requestId: string;
  action: string;
  contractVersion: number;
  args: Record<string, unknown>;
  evidenceRefs?: string[];
  /** The rejected requestId this request corrects (a repair). */
  repairOf?: string;
};

export type ProposalRef = {
  id: string;
  status: ProposalStatus;
  action: string;
  contractVersion: number;
  payloadHash: string;
  createdAt: string;
  expiresAt: string;
  links: { self: string; review: string };
};

export type ProposalState = ProposalRef & {
  summary: string;
  statusReason: string | null;
  decidedAt: string | null;
  decisions: { decision: 'approve' | 'reject'; reason: string | null; at: string }[];
  execution: { status: string; [field: string]: unknown } | null;
  [field: string]: unknown;
};

/** `GET /api/v1/contracts`: every action's versions with their JSON Schemas and this tenant's statuses. */
export type ContractsDocument = {
  actions: {
    action: string;
    title: string;
    scope: string;
    versions: {
      version: number;
      status: 'current' | 'supported' | 'shadow' | 'retired';
      input: Record<string, unknown>;
      output: Record<string, unknown>;
    }[];
  }[];
};

export type Issue = { field: string; code: string; expected?: string; received?: string; message: string };

export type CountersignError =
  /** The API answered with an error body (docs/design.md §4): `errorKind` is its family, `code` the specific reason. */
  | {
      type: 'api';
      status: number;
      errorKind: string;
      code: string;
      message: string;
      issues: Issue[];
      repair?: { allowed: boolean; attemptsLeft: number };
      retryAfterSeconds?: number;
    }
  /** No answer: the server could not be reached, or the request timed out. */
  | { type: 'network'; message: string }
  /** `waitForDecision` ran out of time; `last` is what the proposal looked like then. */
  | { type: 'deadline'; message: string; last?: ProposalState }
  /** An answer that is not the API's JSON (a proxy's error page, a truncated body). */
  | { type: 'malformed_response'; status: number; message: string };

export type Result<T> = { ok: true; value: T } | { ok: false; error: CountersignError };

export type AgentClientOptions = {
  /** Where Countersign answers, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  agentKey: string;
  /** Per request (default 15 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
};

export type WaitOptions = {
  /** Give up after this long (default 10 minutes). */
  deadlineMs?: number;
  /** Until a decision (the default: anything but `pending_approval`) or a final outcome. */
  until?: 'decided' | 'final';
  /** First pause between reads (default 500 ms), doubled each time up to `maxDelayMs` (default 10 s), with jitter. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
  /** Called with each state read, e.g. to show progress. */
  onState?: (state: ProposalState) => void;
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

async function answerOf<T>(
  response: Response,
  pick: (body: Record<string, unknown>, status: number) => T | undefined,
): Promise<Result<T>> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return {
      ok: false,
      error: {
        type: 'malformed_response',
        status: response.status,
        message: `HTTP ${response.status} with a body that is not JSON`,
      },
    };
  }
  if (response.ok && isObject(body)) {
    const value = pick(body, response.status);
    if (value !== undefined) return { ok: true, value };
  }
  const error = isObject(body) && isObject(body.error) ? body.error : undefined;
  if (!response.ok && error && typeof error.code === 'string') {
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      ok: false,
      error: {
        type: 'api',
        status: response.status,
        errorKind: String(error.kind ?? ''),
        code: error.code,
        message: String(error.message ?? ''),
        issues: Array.isArray(error.issues) ? (error.issues as Issue[]) : [],
        ...(isObject(error.repair) ? { repair: error.repair as { allowed: boolean; attemptsLeft: number } } : {}),
        ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
      },
    };
  }
  return {
    ok: false,
    error: {
      type: 'malformed_response',
      status: response.status,
      message: `HTTP ${response.status} without the expected fields`,
    },
  };
}

const createdOf = (body: Record<string, unknown>, status: number) =>
  isObject(body.proposal) && typeof body.proposal.id === 'string'
    ? { proposal: body.proposal as ProposalRef, created: status === 201 }
    : undefined;
const contractsOf = (body: Record<string, unknown>) =>
  Array.isArray(body.actions) ? (body as ContractsDocument) : undefined;
const stateOf = (body: Record<string, unknown>) =>
  typeof body.id === 'string' && typeof body.status === 'string' ? (body as ProposalState) : undefined;

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });
}

export function createAgentClient(options: AgentClientOptions) {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${options.agentKey}`, accept: 'application/json' };

  async function call<T>(
    path: string,
    init: RequestInit,
    pick: (body: Record<string, unknown>, status: number) => T | undefined,
    signal?: AbortSignal,
  ): Promise<Result<T>> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 15_000);
    let response: Response;
    try {
      response = await doFetch(`${base}${path}`, {
        ...init,
        headers: { ...headers, ...init.headers },
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      return {
        ok: false,
        error: {
          type: 'network',
          message: error instanceof Error ? `${error.name}: ${error.message}` : 'the request failed',
        },
      };
    }
    return answerOf(response, pick);
  }

  async function get(id: string, signal?: AbortSignal): Promise<Result<ProposalState>> {
    return call(`/api/v1/proposals/${encodeURIComponent(id)}`, { method: 'GET' }, stateOf, signal);
  }

  return {
    /**
     * Proposes an action. `created` is false when the requestId was already used for the same
     * payload (a retry): the answer is the proposal the first request made.
     */
    async propose(
      input: ProposeInput,
      signal?: AbortSignal,
    ): Promise<Result<{ proposal: ProposalRef; created: boolean }>> {
      const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) };
      return call('/api/v1/proposals', init, createdOf, signal);
    },

    get,

    /** The contracts, to build tools from (each action's `current` version is the one to propose). */
    async contracts(signal?: AbortSignal): Promise<Result<ContractsDocument>> {
      return call('/api/v1/contracts', { method: 'GET' }, contractsOf, signal);
    },

    /**
     * Reads the proposal until it is decided (or final), pausing with exponential backoff and
     * jitter, and honouring Retry-After. Errors other than a rate limit or an unavailable system
     * of record end the wait at once.
     */
    async waitForDecision(id: string, wait: WaitOptions = {}): Promise<Result<ProposalState>> {
      const deadline = Date.now() + (wait.deadlineMs ?? 10 * 60_000);
      const done = (state: ProposalState) =>
        wait.until === 'final' ? FINAL_STATUSES.includes(state.status) : state.status !== 'pending_approval';
      let delay = wait.initialDelayMs ?? 500;
      let last: ProposalState | undefined;
      for (;;) {
        const result = await get(id, wait.signal);
        let retryAfterMs = 0;
        if (result.ok) {
          last = result.value;
          wait.onState?.(last);
          if (done(last)) return result;
        } else if (result.error.type === 'api' && (result.error.status === 429 || result.error.status === 503)) {
          retryAfterMs = (result.error.retryAfterSeconds ?? 1) * 1000;
        } else if (result.error.type !== 'network') {
          return result;
        }
        const left = deadline - Date.now();
        if (left <= 0 || wait.signal?.aborted) {
          return {
            ok: false,
            error: {
              type: 'deadline',
              message: wait.signal?.aborted ? 'the wait was cancelled' : 'no decision before the deadline',
              ...(last ? { last } : {}),
            },
          };
        }
        const jittered = delay / 2 + Math.random() * (delay / 2);
        await pause(Math.min(left, Math.max(jittered, retryAfterMs)), wait.signal);
        delay = Math.min(delay * 2, wait.maxDelayMs ?? 10_000);
      }
    },
  };
}

export type AgentClient = ReturnType<typeof createAgentClient>;

export {
  CLOCK_SKEW_SECONDS,
  COMMAND_LIFETIME_SECONDS,
  COMMAND_TYP,
  type CommandClaims,
  CommandRejected,
  type CommandRejectedCode,
  type VerifyCommandOptions,
  verifyCommand,
} from './command';
export { type ExecuteResult, type ExecutorOptions, executorHandler, type Receipt } from './executor';
export { MAX_BODY_BYTES, nodeHandler, type WebHandler } from './http';
export { type Jwks, type KeySet, type KeySource, localKeySet, type RemoteKeySetOptions, remoteKeySet } from './key-set';
export {
  jtiSet,
  REQUEST_PROOF_HEADER,
  REQUEST_PROOF_LIFETIME_SECONDS,
  REQUEST_PROOF_TYP,
  type ReplayGuard,
  type RequestParts,
  type RequestProofClaims,
  RequestRejected,
  type RequestRejectedCode,
  type VerifyRequestOptions,
  verifyRequest,
} from './request-proof';
export {
  type EvidenceRecord,
  type EvidenceRequest,
  type EvidenceResolverOptions,
  evidenceResolverHandler,
  type Resolution,
  type ResolveRequest,
  type ResolverOptions,
  resolverHandler,
} from './resolver';
export type { ServiceOptions } from './service';
