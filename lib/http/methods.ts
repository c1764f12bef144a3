import { Refusal } from '@/lib/errors/refusal';
import { errorResponse } from './errors';

/** The methods an API route may implement; OPTIONS is answered for every route (with `Allow`). */
export const ROUTE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

type Handler = (request: Request) => Response;
type Declared = Partial<Record<RouteMethod, unknown>>;
/** HEAD is Next's own (the GET handler without a body) when the route has a GET. */
type Undeclared<D extends Declared> = Exclude<RouteMethod, keyof D | ('GET' extends keyof D ? 'HEAD' : never)>;

/** `Allow` as Next words it for its own OPTIONS answer: sorted, HEAD beside GET, OPTIONS always. */
export function allowHeader(declared: readonly string[]): string {
  const allowed = new Set([...declared, 'OPTIONS']);
  if (allowed.has('GET')) allowed.add('HEAD');
  return [...allowed].sort().join(', ');
}

/**
 * The rest of a route file's methods, from the ones it declares: each answers 405 in the API's
 * error body with `Allow` (where Next alone answers an empty 405 without it), and OPTIONS answers
 * 204 with the same `Allow`. A route file ends with
 * `export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });` — the type lets
 * it take only methods the file does not declare; test/api-routes.test.ts checks none is missing.
 */
export function otherMethods<D extends Declared>(declared: D): Record<Undeclared<D>, Handler> & { OPTIONS: Handler } {
  const names = Object.keys(declared).filter((name) => declared[name as RouteMethod] !== undefined);
  const allow = allowHeader(names);
  const refusal: Handler = (request) =>
    errorResponse(
      new Refusal(
        'method_not_allowed',
        `${request.method} is not allowed here; this path takes ${allow}.`,
        {},
        { headers: { Allow: allow } },
      ),
    );
  const undeclared = ROUTE_METHODS.filter(
    (method) => !names.includes(method) && !(method === 'HEAD' && names.includes('GET')),
  );
  const options: Handler = () => new Response(null, { status: 204, headers: { Allow: allow } });
  return Object.fromEntries([...undeclared.map((method) => [method, refusal]), ['OPTIONS', options]]) as Record<
    Undeclared<D>,
    Handler
  > & { OPTIONS: Handler };
}

/** Every method of a path no route serves: a 404 in the API's error body (Next alone answers its HTML page). */
export function noSuchPath(): Record<RouteMethod | 'OPTIONS', Handler> {
  const handler: Handler = (request) =>
    errorResponse(
      new Refusal('not_found', `There is no ${new URL(request.url).pathname} in this API; see /api/v1/openapi.json.`),
    );
  return Object.fromEntries([...ROUTE_METHODS, 'OPTIONS'].map((method) => [method, handler])) as Record<
    RouteMethod | 'OPTIONS',
    Handler
  >;
}
