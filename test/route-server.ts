import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';

type Handler = (request: Request) => Promise<Response>;

async function toRequest(incoming: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(incoming.url ?? '/', origin), { method: incoming.method, headers, body, signal });
}

async function send(response: Response, outgoing: ServerResponse): Promise<void> {
  outgoing.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  outgoing.end(Buffer.from(await response.arrayBuffer()));
}

/**
 * Route handlers behind a real loopback HTTP server, for clients that need a URL (the MCP
 * client): each request is handed to the handler for its method as Next would, as a fetch Request
 * whose signal aborts when the client goes away. Started in beforeAll, closed in afterAll.
 */
export function setupRouteServer(handlers: Partial<Record<'GET' | 'POST' | 'DELETE', Handler>>): {
  readonly url: string;
  readonly received: number;
} {
  let url: string | undefined;
  let received = 0;
  const server = createServer((incoming, outgoing) => {
    received += 1;
    const aborted = new AbortController();
    outgoing.on('close', () => aborted.abort());
    const handler = handlers[incoming.method as keyof typeof handlers];
    if (!handler) {
      outgoing.writeHead(405).end();
      return;
    }
    toRequest(incoming, url!, aborted.signal)
      .then(handler)
      .then((response) => send(response, outgoing))
      .catch(() => outgoing.writeHead(500).end());
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port was assigned');
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    /** Requests received so far (to await one arriving, instead of sleeping). */
    get received() {
      return received;
    },
    get url() {
      if (!url) throw new Error('The route server is not listening yet: use it inside tests or hooks.');
      return url;
    },
  };
}
