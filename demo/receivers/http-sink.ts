import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the sink received, as it arrived. */
export type SinkRequest = {
  path: string;
  headers: Record<string, string>;
  body: string;
  receivedAt: string;
  /** For paths with a registered secret: did the Standard Webhooks signature check out? */
  signature: 'valid' | 'invalid' | 'unchecked';
  /** What the sink answered. */
  status: number;
};

/** A page the sink serves on GET instead of its JSON list (the demo's view of what arrived). */
export type SinkPage = { contentType: string; body: string; headers?: Record<string, string> };

/** What the sink does with the next requests to a path: answer this status, or never answer. */
export type SinkFault = { status: number } | { hang: true };

export type HttpSink = {
  url: string;
  /** Every request so far, oldest first. */
  received(path?: string): SinkRequest[];
  /** Checks signatures on this path with this `whsec_…` secret, independently of the sender's library. */
  expectSecret(path: string, secret: string): void;
  /** The next `count` requests to `path` meet this fault. */
  fail(path: string, fault: SinkFault, count?: number): void;
  clear(): void;
  close(): Promise<void>;
};

const TOLERANCE_S = 5 * 60;

/**
 * Standard Webhooks verification written from the specification, not with the sender's library:
 * HMAC-SHA256 over `id.timestamp.body` with the base64 key after `whsec_`, any `v1,` signature of
 * the space-separated list matching, and a timestamp within five minutes.
 */
export function verifyStandardWebhook(
  secret: string,
  headers: Record<string, string>,
  body: string,
  now = Date.now(),
): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_S) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',');
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

async function readBody(request: IncomingMessage, limit: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A local receiver for webhook and Slack notifications (demo and tests): records each POST, checks
 * signatures where it knows the secret, and fails on demand. A GET is answered by `pages` for its
 * path when it has one, else with the last 100 requests as JSON.
 */
export async function startHttpSink(
  options: { port?: number; host?: string; keep?: number; pages?: Record<string, () => SinkPage> } = {},
): Promise<HttpSink> {
  const requests: SinkRequest[] = [];
  const secrets = new Map<string, string>();
  const faults = new Map<string, SinkFault[]>();
  const hanging = new Set<ServerResponse>();
  const keep = options.keep ?? 1_000;

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://sink').pathname;
    if (request.method === 'GET') {
      const page = options.pages && Object.hasOwn(options.pages, path) ? options.pages[path]!() : undefined;
      if (page) {
        response.writeHead(200, { ...page.headers, 'content-type': page.contentType });
        response.end(page.body);
        return;
      }
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(requests.slice(-100)));
      return;
    }
    if (request.method !== 'POST') {
      response.statusCode = 405;
      response.end();
      return;
    }
    void readBody(request, 1024 * 1024).then((body) => {
      if (body === undefined) {
        response.statusCode = 413;
        response.end();
        return;
      }
      const headers = Object.fromEntries(
        Object.entries(request.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(', ') : (value ?? ''),
        ]),
      );
      const secret = secrets.get(path);
      const fault = faults.get(path)?.shift();
      const status = fault && 'status' in fault ? fault.status : 200;
      requests.push({
        path,
        headers,
        body,
        receivedAt: new Date().toISOString(),
        signature: secret ? (verifyStandardWebhook(secret, headers, body) ? 'valid' : 'invalid') : 'unchecked',
        status: fault && 'hang' in fault ? 0 : status,
      });
      if (requests.length > keep) requests.splice(0, requests.length - keep);
      if (fault && 'hang' in fault) {
        hanging.add(response);
        return;
      }
      response.statusCode = status;
      response.setHeader('content-type', 'text/plain');
      response.end(status < 300 ? 'ok' : 'failed on purpose');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: (path) => requests.filter((request) => path === undefined || request.path === path),
    expectSecret: (path, secret) => void secrets.set(path, secret),
    fail(path, fault, count = 1) {
      const queue = faults.get(path) ?? [];
      for (let i = 0; i < count; i++) queue.push(fault);
      faults.set(path, queue);
    },
    clear() {
      requests.length = 0;
      faults.clear();
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
