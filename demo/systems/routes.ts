import type { IncomingMessage, ServerResponse } from 'node:http';
import { requireRead } from './auth';
import { HttpError, notFound, send, sendJson } from './http';
import { PAGE_HEADERS, renderPage } from './page';
import { addEvidence, clearFaults, listFaults, queueFault, resetWorld } from './test-mode';
import { WRITES, type WriteContext } from './writes';

export type RouteContext = WriteContext & { testMode: boolean };

/** `GET /orders/:id`, `GET /skus/:sku`, `GET /evidence/:id`. */
const READS = new Map<string, { what: string; find(context: RouteContext, id: string): object | undefined }>([
  ['orders', { what: 'order', find: (context, id) => context.ledger.order(id) }],
  ['skus', { what: 'SKU', find: (context, id) => context.ledger.sku(id) }],
  ['evidence', { what: 'evidence', find: (context, id) => context.ledger.evidence(id) }],
]);

const methodNotAllowed = (allowed: string[]) =>
  new HttpError(405, 'method_not_allowed', `Use ${allowed.join(' or ')} here.`, { Allow: allowed.join(', ') });

const noEndpoint = () => new HttpError(404, 'not_found', 'No such endpoint.');

function allow(method: string | undefined, allowed: string[]): string {
  if (!method || !allowed.includes(method)) throw methodNotAllowed(allowed);
  return method;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw noEndpoint();
  }
}

/** Dispatches one request; throws HttpError for every refusal. */
export async function route(
  context: RouteContext,
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
): Promise<void> {
  const segments = url.pathname.split('/').slice(1);
  const [first = '', second] = segments;
  if (segments.length > 2 || (segments.length === 2 && !second)) throw noEndpoint();

  if (second !== undefined) {
    const read = READS.get(first);
    if (!read) throw noEndpoint();
    allow(request.method, ['GET']);
    requireRead(request, context.credentials);
    const record = read.find(context, decodeSegment(second));
    if (!record) throw notFound(read.what);
    return sendJson(response, 200, record);
  }

  switch (first) {
    case '':
      allow(request.method, ['GET']);
      requireRead(request, context.credentials);
      return send(
        response,
        200,
        'text/html; charset=utf-8',
        renderPage({ ...readView(context), testMode: context.testMode }),
        PAGE_HEADERS,
      );
    case 'health':
      allow(request.method, ['GET']);
      return sendJson(response, 200, { status: 'ok' });
    case 'refunds':
    case 'holds': {
      const endpoint = WRITES[first];
      return allow(request.method, ['GET', 'POST']) === 'POST'
        ? endpoint.write(context, request, response)
        : endpoint.lookup(context, request, response, url.searchParams);
    }
    case '__faults':
      if (!context.testMode) throw noEndpoint();
      switch (allow(request.method, ['GET', 'POST', 'DELETE'])) {
        case 'POST':
          return queueFault(context, request, response);
        case 'DELETE':
          return clearFaults(context, response);
        default:
          return listFaults(context, response);
      }
    case '__evidence':
      if (!context.testMode) throw noEndpoint();
      allow(request.method, ['POST']);
      return addEvidence(context, request, response);
    case '__reset':
      if (!context.testMode) throw noEndpoint();
      allow(request.method, ['POST']);
      return resetWorld(context, response);
    default:
      throw noEndpoint();
  }
}

function readView(context: RouteContext) {
  return { orders: context.ledger.orders(), skus: context.ledger.skus(), evidence: context.ledger.evidenceList() };
}
