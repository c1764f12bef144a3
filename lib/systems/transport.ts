import http from 'node:http';
import https from 'node:https';

/**
 * The systems of record's own HTTP connection pool: keep-alive sockets reused across requests,
 * outside Next's patched `fetch` (which cost 14% of intake CPU, issue 23). Errors are what `fetch`
 * would throw: the signal's reason when it aborts (a `TimeoutError` for a deadline), otherwise the
 * socket's error, so callers classify them as before.
 */

/** An answer whose status has arrived; its body is read to the end in the background. */
export type SystemsAnswer = {
  status: number;
  /** The whole body as UTF-8 text; rejects if the connection fails or the signal aborts first. */
  body: Promise<string>;
};

export type SystemsRequest = {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The deadline (or the caller's cancellation) for the whole exchange, queueing and body included. */
  signal: AbortSignal;
};

export type SystemsTransport = {
  request(url: URL, init: SystemsRequest): Promise<SystemsAnswer>;
  /** Closes the pooled sockets (tests and shutdown). */
  close(): void;
};

/**
 * The most an answer's body may hold: records, receipts, a resolver's facts and evidence text (at
 * most 20,000 characters) are far smaller. A service streaming more (a tenant's own resolver, say)
 * is cut off, its answer a failed read, rather than held in memory until the deadline.
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

export class AnswerTooLargeError extends Error {
  constructor() {
    super(`the answer's body is over ${MAX_ANSWER_BYTES} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

/** Free sockets are closed after this long idle, or 1 s before the server's `Keep-Alive: timeout`. */
const IDLE_SOCKET_MS = 4_000;

/** A server may close an idle kept-alive socket just as a request is sent on it: the request never reached it. */
class StaleSocketError extends Error {
  constructor(readonly original: unknown) {
    super('a reused socket was closed by the server before it answered');
  }
}

const isReset = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ECONNRESET' || code === 'EPIPE';
};

const unwrapped = (error: unknown) => (error instanceof StaleSocketError ? error.original : error);

export function createSystemsTransport(
  options: { maxSockets?: number; maxAnswerBytes?: number } = {},
): SystemsTransport {
  const maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? 64,
    timeout: IDLE_SOCKET_MS,
    scheduling: 'lifo' as const,
  };
  const agents = { 'http:': new http.Agent(agentOptions), 'https:': new https.Agent(agentOptions) };

  function attempt(url: URL, init: SystemsRequest): Promise<SystemsAnswer> {
    return new Promise((resolve, reject) => {
      const { signal } = init;
      if (signal.aborted) return reject(signal.reason);
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') return reject(new TypeError(`unsupported protocol ${url.protocol}`));
      const headers =
        init.body === undefined
          ? init.headers
          : { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) };
      const request = (secure ? https : http).request(url, {
        method: init.method,
        headers,
        agent: secure ? agents['https:'] : agents['http:'],
      });

      // Whichever phase is waiting (the answer, then its body) hears the first failure.
      let fail: (error: unknown) => void = reject;
      let answered = false;
      let settled = false;
      const finish = () => {
        settled = true;
        signal.removeEventListener('abort', onAbort);
      };
      const failOnce = (error: unknown) => {
        if (settled) return;
        finish();
        fail(error);
      };
      function onAbort() {
        failOnce(signal.reason);
        request.destroy();
      }
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) =>
        failOnce(!answered && request.reusedSocket && isReset(error) ? new StaleSocketError(error) : error),
      );

      request.on('response', (response) => {
        answered = true;
        const body = new Promise<string>((resolveBody, rejectBody) => {
          fail = rejectBody;
          const chunks: Buffer[] = [];
          let received = 0;
          response.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received <= maxAnswerBytes) return void chunks.push(chunk);
            failOnce(new AnswerTooLargeError());
            request.destroy();
          });
          response.on('error', failOnce);
          response.on('aborted', () => failOnce(Object.assign(new Error('aborted'), { code: 'ECONNRESET' })));
          response.on('end', () => {
            if (settled) return;
            finish();
            resolveBody(Buffer.concat(chunks).toString('utf8'));
          });
        });
        // A caller that only needs the status never awaits the body; its failure is no crash.
        body.catch(() => undefined);
        resolve({ status: response.statusCode ?? 0, body });
      });
      request.end(init.body);
    });
  }

  return {
    async request(url, init) {
      try {
        return await attempt(url, init);
      } catch (error) {
        // Reads are idempotent: once more. A write is never repeated here.
        if (!(error instanceof StaleSocketError) || init.method !== 'GET') throw unwrapped(error);
        return attempt(url, init).catch((again: unknown) => {
          throw unwrapped(again);
        });
      }
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
