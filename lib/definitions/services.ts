import { env } from '@/lib/env';
import { originOf } from '@/lib/input/origins';
import { REQUEST_PROOF_HEADER, signRequest } from '@/lib/signing/request-proof';
import { SystemsUnavailableError } from '@/lib/systems/client';
import { createSystemsTransport, type SystemsAnswer, type SystemsTransport } from '@/lib/systems/transport';

/**
 * Requests to a team's resolver and executor (docs/executors.md): only to an origin the operator
 * allows (`ACTION_ALLOWED_ORIGINS`), each with a request proof signed by the command keys, over the
 * systems' own connection pool. No redirect is followed: a service answers where it was named.
 */

/** How long a resolver or a reconciliation look-up may take. */
export const SERVICE_TIMEOUT_MS = 3_000;

let transport: SystemsTransport | undefined;
const pool = () => {
  transport ??= createSystemsTransport({ maxSockets: env().SYSTEMS_OF_RECORD_MAX_SOCKETS });
  return transport;
};

/** Whether the operator allows definitions to name this URL's origin. */
export function originAllowed(url: string, allowed: readonly string[] = env().ACTION_ALLOWED_ORIGINS): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const origin = originOf(parsed);
  return (
    (parsed.protocol === 'http:' || parsed.protocol === 'https:') && origin !== undefined && allowed.includes(origin)
  );
}

export type ServiceRequest = {
  url: string;
  method: 'GET' | 'POST';
  body?: string;
  contentType?: string;
  signal?: AbortSignal;
};

/**
 * One signed request. Throws SystemsUnavailableError for an origin the operator does not allow (at
 * publish time it was; the list may have changed since) and for a service that cannot be reached;
 * a timeout rethrows the signal's own error so a caller can tell it apart.
 */
export async function callService(request: ServiceRequest): Promise<SystemsAnswer> {
  if (!originAllowed(request.url)) throw new SystemsUnavailableError('origin not allowed');
  const body = request.body ?? '';
  const proof = await signRequest({ url: request.url, method: request.method, body });
  const headers: Record<string, string> = { accept: 'application/json', [REQUEST_PROOF_HEADER]: proof };
  if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
  return pool().request(new URL(request.url), {
    method: request.method,
    headers,
    ...(request.body === undefined ? {} : { body }),
    signal: request.signal ?? AbortSignal.timeout(SERVICE_TIMEOUT_MS),
  });
}

/** The answer's body as JSON, or undefined when it is not JSON. */
export async function jsonOf(answer: SystemsAnswer): Promise<unknown> {
  return answer.body.then((text) => JSON.parse(text) as unknown).catch(() => undefined);
}
