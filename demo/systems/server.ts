import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { assertCredentials, type ScopeCredentials } from './auth';
import { FaultQueue } from './faults';
import { HttpError, sendError } from './http';
import { Ledger } from './ledger';
import { loadLedgers } from './persistence';
import { type RouteContext, route } from './routes';
import { demoCatalog, seededLedgers } from './world';

/**
 * The demo systems of record (docs/design.md §13): payments, inventory and a ticketing store, as a
 * separate HTTP service that Countersign reaches only through its action adapters.
 */

export type SystemsOfRecordOptions = {
  /** 0 picks a free port; the returned url carries the real one. */
  port: number;
  host?: string;
  credentials: ScopeCredentials;
  /** Enables `/__faults`, `/__evidence` and `/__reset`. */
  testMode?: boolean;
  /** Keeps the ledgers across restarts (loaded at start, rewritten atomically after each commit). */
  dataFile?: string;
  /** Adds this many scaled acme orders, SKUs and tickets to the seeded catalogs (DEMO_SCALE; default 0). */
  scale?: number;
  /** One line per answered request: method, path (without query), status, duration. Never bodies or credentials. */
  log?: (line: string) => void;
};

export type SystemsOfRecord = { url: string; close(): Promise<void> };

export async function startSystemsOfRecord(options: SystemsOfRecordOptions): Promise<SystemsOfRecord> {
  assertCredentials(options.credentials);
  const host = options.host ?? '127.0.0.1';
  const dataFile = options.dataFile ? path.resolve(options.dataFile) : undefined;
  const ledger = new Ledger((dataFile && loadLedgers(dataFile)) || seededLedgers(), demoCatalog(options.scale ?? 0));

  const context: RouteContext = {
    ledger,
    faults: new FaultQueue(),
    credentials: { ...options.credentials },
    dataFile,
    testMode: options.testMode ?? false,
  };

  const server = http.createServer((request, response) => {
    void handle(context, request, response, options.log);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let closed: Promise<void> | undefined;
  return {
    url,
    close() {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Also ends connections held open by timeout faults and idle keep-alive connections.
        server.closeAllConnections();
      });
      return closed;
    },
  };
}

async function handle(
  context: RouteContext,
  request: IncomingMessage,
  response: ServerResponse,
  log?: (line: string) => void,
): Promise<void> {
  const started = performance.now();
  let url: URL;
  try {
    url = new URL(request.url ?? '/', 'http://systems.invalid');
  } catch {
    url = new URL('http://systems.invalid/');
  }
  if (log) {
    response.on('close', () => {
      const status = response.headersSent ? String(response.statusCode) : 'no answer';
      log(`${request.method ?? '?'} ${url.pathname} ${status} ${Math.round(performance.now() - started)}ms`);
    });
  }
  try {
    await route(context, request, response, url);
  } catch (error) {
    if (error instanceof HttpError) return sendError(response, error);
    // The client went away (mid-body, or while a fault held its request): nobody to answer.
    if (request.destroyed || response.destroyed) return;
    // Unknown failures never leak their text (it could quote a body).
    console.error('[systems] unhandled error', error instanceof Error ? error.name : typeof error);
    sendError(
      response,
      new HttpError(500, 'internal_error', 'Something went wrong in the systems of record; nothing was committed.'),
    );
  }
}
