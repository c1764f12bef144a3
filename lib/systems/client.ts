import type { z } from 'zod';
import { env, systemsOfRecordUrl } from '@/lib/env';
import { Refusal } from '@/lib/errors/refusal';
import { createSystemsTransport, type SystemsAnswer, type SystemsTransport } from './transport';

/**
 * The system of record could not give a trustworthy answer: fail closed, nothing changed. A domain
 * error from the start (503 `systems_unavailable`, retry in 5 s), so no caller translates it; the
 * `reason` is for logs and execution records, never for the client.
 */
export class SystemsUnavailableError extends Refusal {
  constructor(readonly reason: string) {
    super(
      'systems_unavailable',
      'The system of record could not be reached; nothing was changed. Retry later.',
      {},
      { retryAfterSeconds: 5 },
    );
    this.name = 'SystemsUnavailableError';
  }
}

export type SystemsClient = {
  /** A validated record, or undefined when the system says it does not exist (404). */
  read<T>(path: string, schema: z.ZodType<T>, scope: string): Promise<T | undefined>;
};

export const isTimeout = (error: unknown) =>
  error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');

/** Both clients' default: the pool of the settings' systems of record, one per process. */
let sharedTransport: SystemsTransport | undefined;
function settingsTransport(): SystemsTransport {
  sharedTransport ??= createSystemsTransport({ maxSockets: env().SYSTEMS_OF_RECORD_MAX_SOCKETS });
  return sharedTransport;
}

export function createSystemsClient(options: {
  baseUrl: string;
  credentials: Record<string, string>;
  timeoutMs?: number;
  transport?: SystemsTransport;
}): SystemsClient {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const transport = options.transport ?? createSystemsTransport();
  return {
    async read(path, schema, scope) {
      // An id of "." or ".." would climb out of its collection once the URL is resolved: no such record.
      if (path.split('/').some((part) => part === '.' || part === '..')) return undefined;
      const credential = options.credentials[scope];
      let answer: SystemsAnswer;
      try {
        answer = await transport.request(new URL(path, options.baseUrl), {
          method: 'GET',
          headers: { accept: 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        throw new SystemsUnavailableError(isTimeout(error) ? 'timeout' : 'unreachable');
      }
      if (answer.status === 404) return undefined;
      if (answer.status < 200 || answer.status >= 300) throw new SystemsUnavailableError(`status ${answer.status}`);
      const parsed = schema.safeParse(
        await answer.body.then((text) => JSON.parse(text) as unknown).catch(() => undefined),
      );
      if (!parsed.success) throw new SystemsUnavailableError('unexpected response shape');
      return parsed.data;
    },
  };
}

let shared: SystemsClient | undefined;

export function systemsClient(): SystemsClient {
  shared ??= createSystemsClient({
    baseUrl: systemsOfRecordUrl(env()),
    credentials: env().SCOPE_CREDENTIALS ?? {},
    transport: settingsTransport(),
  });
  return shared;
}

/** A path segment from an id the agent sent (already pattern-checked): never a path trick. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}

/**
 * What a write to a system of record came to. `answered`: a 2xx with a JSON body (not yet trusted:
 * the action validates it as a receipt). `refused`: a definite refusal (4xx other than 408/429), so
 * nothing was committed. `unknown`: no trustworthy answer (timeout, unreachable, 5xx, non-JSON).
 */
export type WriteResponse =
  | { kind: 'answered'; status: number; body: unknown }
  | { kind: 'refused'; status: number; code: string; message: string }
  | { kind: 'unknown'; reason: 'timeout' | 'unreachable' | 'system_error' | 'malformed_response' };

export type LookupResponse = { found: true; body: unknown } | { found: false };

/** The executor's client for one scope: writes keyed by idempotency key, and look-ups by that key. */
export type SystemsWriteClient = {
  readonly scope: string;
  /** POSTs JSON with the scope's credential; never throws for the system's answer. */
  write(path: string, body: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<WriteResponse>;
  /** GETs a record; `found: false` on 404; throws SystemsUnavailableError when the system can't answer. */
  lookup(path: string, options?: { signal?: AbortSignal }): Promise<LookupResponse>;
};

const REFUSAL_CODE = /^[a-z][a-z0-9_]{0,63}$/;

async function refusalOf(answer: SystemsAnswer): Promise<{ code: string; message: string }> {
  const body = (await answer.body.then((text) => JSON.parse(text) as unknown).catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown } }
    | undefined;
  const code =
    typeof body?.error?.code === 'string' && REFUSAL_CODE.test(body.error.code)
      ? body.error.code
      : `status_${answer.status}`;
  const message =
    typeof body?.error?.message === 'string'
      ? body.error.message.slice(0, 500)
      : `The system of record refused the write (${answer.status}).`;
  return { code, message };
}

export function createSystemsWriteClient(options: {
  baseUrl: string;
  credential: string;
  scope?: string;
  timeoutMs?: number;
  transport?: SystemsTransport;
}): SystemsWriteClient {
  const timeoutMs = options.timeoutMs ?? 3_000;
  const transport = options.transport ?? createSystemsTransport();
  const signalFor = (signal?: AbortSignal) => signal ?? AbortSignal.timeout(timeoutMs);
  const headers = { accept: 'application/json', authorization: `Bearer ${options.credential}` };
  return {
    scope: options.scope ?? '',
    async write(path, body, { signal } = {}) {
      let answer: SystemsAnswer;
      try {
        answer = await transport.request(new URL(path, options.baseUrl), {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: signalFor(signal),
        });
      } catch (error) {
        return { kind: 'unknown', reason: isTimeout(error) ? 'timeout' : 'unreachable' };
      }
      const { status } = answer;
      if (status >= 500 || status === 408 || status === 429) return { kind: 'unknown', reason: 'system_error' };
      if (status >= 400) return { kind: 'refused', status, ...(await refusalOf(answer)) };
      // Redirects are not followed: a write is never re-sent elsewhere.
      if (status < 200 || status >= 300) return { kind: 'unknown', reason: 'malformed_response' };
      let text: string;
      try {
        text = await answer.body;
      } catch (error) {
        return { kind: 'unknown', reason: isTimeout(error) ? 'timeout' : 'unreachable' };
      }
      try {
        return { kind: 'answered', status, body: JSON.parse(text) as unknown };
      } catch {
        return { kind: 'unknown', reason: 'malformed_response' };
      }
    },
    async lookup(path, { signal } = {}) {
      if (path.split('/').some((part) => part === '.' || part === '..'))
        throw new SystemsUnavailableError('invalid path');
      let answer: SystemsAnswer;
      try {
        answer = await transport.request(new URL(path, options.baseUrl), {
          method: 'GET',
          headers,
          signal: signalFor(signal),
        });
      } catch (error) {
        throw new SystemsUnavailableError(isTimeout(error) ? 'timeout' : 'unreachable');
      }
      if (answer.status === 404) return { found: false };
      if (answer.status < 200 || answer.status >= 300) throw new SystemsUnavailableError(`status ${answer.status}`);
      const text = await answer.body.catch(() => {
        throw new SystemsUnavailableError('unreadable response');
      });
      try {
        return { found: true, body: JSON.parse(text) as unknown };
      } catch {
        throw new SystemsUnavailableError('unexpected response shape');
      }
    },
  };
}

const writeClients = new Map<string, SystemsWriteClient>();

/** The executor's client for a scope, with that scope's credential from SCOPE_CREDENTIALS. */
export function systemsWriteClient(scope: string): SystemsWriteClient {
  let client = writeClients.get(scope);
  if (!client) {
    const credential = env().SCOPE_CREDENTIALS?.[scope];
    if (!credential) throw new SystemsUnavailableError(`no credential configured for scope ${scope}`);
    client = createSystemsWriteClient({
      baseUrl: systemsOfRecordUrl(env()),
      credential,
      scope,
      transport: settingsTransport(),
    });
    writeClients.set(scope, client);
  }
  return client;
}

/** Reconciliation: the record a collection committed under this idempotency key, if any. */
export async function lookupByIdempotencyKey(
  client: SystemsWriteClient,
  collection: string,
  idempotencyKey: string,
): Promise<{ found: true; receipt: unknown } | { found: false }> {
  const answer = await client.lookup(`/${collection}?idempotencyKey=${encodeURIComponent(idempotencyKey)}`);
  return answer.found ? { found: true, receipt: answer.body } : { found: false };
}
