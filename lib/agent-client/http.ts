import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** A Web-standard handler: `export const POST = handler` in a Next route, or nodeHandler(handler). */
export type WebHandler = (request: Request) => Promise<Response>;

/** Bodies larger than this are refused (413) before any verification. */
export const MAX_BODY_BYTES = 1024 * 1024;

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

export const errorAnswer = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  json(status, { error: { code, message } }, headers);

export const tooLarge = () => errorAnswer(413, 'body_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`);

/** The exact body bytes, or undefined when there are more than MAX_BODY_BYTES (never buffered past the cap). */
export async function bodyBytes(request: Request): Promise<Uint8Array | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > MAX_BODY_BYTES) return undefined;
  if (!request.body) return new Uint8Array();
  let size = 0;
  const capped = request.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        size += chunk.byteLength;
        if (size > MAX_BODY_BYTES) controller.error(new RangeError('body too large'));
        else controller.enqueue(chunk);
      },
    }),
  );
  try {
    return new Uint8Array(await new Response(capped).arrayBuffer());
  } catch (error) {
    if (size > MAX_BODY_BYTES) return undefined;
    throw error;
  }
}

function headersOf(incoming: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  return headers;
}

async function serve(handler: WebHandler, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) return send(res, tooLarge());
    chunks.push(chunk);
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`), {
    method,
    headers: headersOf(req.headers),
    ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
  });
  return send(res, await handler(request));
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const body = new Uint8Array(await response.arrayBuffer());
  res.writeHead(response.status, Object.fromEntries(response.headers)).end(body);
}

/** Adapts a Web handler to Node's `http.createServer((req, res) => …)`. */
export function nodeHandler(handler: WebHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    serve(handler, req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else send(res, errorAnswer(500, 'internal_error', 'The handler failed.')).catch(() => res.destroy());
    });
  };
}
