import type { IncomingMessage, ServerResponse } from 'node:http';

/** Small request and response helpers over node:http. Every error body is `{error: {code, message}}`. */

export const BODY_LIMIT_BYTES = 16 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const notFound = (what = 'record') => new HttpError(404, 'not_found', `No ${what} with that id.`);

const COMMON_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

/** Sends a complete response with the headers every answer carries. */
export function send(
  response: ServerResponse,
  status: number,
  contentType: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  const bytes = Buffer.from(body, 'utf8');
  response.writeHead(status, {
    ...COMMON_HEADERS,
    ...headers,
    'Content-Type': contentType,
    'Content-Length': String(bytes.length),
  });
  response.end(bytes);
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  send(response, status, 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

export function sendError(response: ServerResponse, error: HttpError): void {
  sendJson(response, error.status, { error: { code: error.code, message: error.message } }, error.headers);
}

/** True for `application/json`, with or without parameters such as `; charset=utf-8`. */
export function isJsonContentType(header: string | undefined): boolean {
  return (header ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** Reads a JSON body: 415 without a JSON content type, 413 above the limit, 400 when not UTF-8 JSON. */
export async function readJsonBody(request: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (!isJsonContentType(request.headers['content-type'])) {
    throw new HttpError(415, 'unsupported_media_type', 'Send the body as JSON with "Content-Type: application/json".');
  }
  // The rest of the body stays unread: the connection closes after the answer.
  const tooLarge = () =>
    new HttpError(413, 'too_large', `The body is larger than ${limit} bytes.`, { Connection: 'close' });
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const bytes = await readBytes(request, limit).catch((error: unknown) => {
    throw error === TOO_LARGE ? tooLarge() : error;
  });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError(400, 'invalid_json', 'The body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_json', 'The body is not valid JSON.');
  }
}

const TOO_LARGE = Symbol('too large');

/**
 * Collects the body without async iteration: leaving a `for await` early destroys the request and
 * with it the socket, so the 413 could not be sent. Above the limit it stops reading and rejects;
 * the response then closes the connection.
 */
function readBytes(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        request.pause();
        reject(TOO_LARGE);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    // Closed before the end: the client went away mid-body.
    const onClose = () => onError(new Error('request closed before its end'));
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
}
