/**
 * Every answer under /api is JSON in the one error shape: each route file's undeclared methods are
 * a 405 naming the declared ones in `Allow`, and a path no route serves is a JSON 404 (the
 * catch-all app/api/[...path]). The declared methods are read from each file's source, as a reader
 * sees them, not from the helper that builds the refusals.
 */
import { describe, expect, it, vi } from 'vitest';
import { declaredMethods, routeFiles } from './route-files';

// next-auth does not load outside Next; no refusal here reaches it.
vi.mock('@/lib/auth', () => ({ auth: async () => null, handlers: {} }));

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number] | 'OPTIONS';
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response;
/** next-auth's own route is left to next-auth; the catch-all is tested below. */
const NOT_HERE = ['app/api/auth/[...nextauth]/route.ts', 'app/api/[...path]/route.ts'];
/** The MCP endpoint answers GET and DELETE itself, in JSON-RPC (its 405 with `Allow: POST` after the key check). */
const DECLARED_ELSEWHERE: Record<string, string[]> = { 'app/api/mcp/route.ts': ['POST'] };

/** What a file handles itself, among the methods that may be refused (OPTIONS is always answered). */
const exportedIn = (file: string): string[] => declaredMethods(file).filter((method) => method !== 'OPTIONS');

/** As Next's own OPTIONS answer words it: sorted, with HEAD beside GET and OPTIONS. */
const expectedAllow = (declared: string[]) =>
  [...new Set([...declared, ...(declared.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].sort().join(', ');

const call = (handler: Handler, method: string, url = 'http://countersign.test/api/x') =>
  handler(new Request(url, { method }), { params: Promise.resolve({}) });

const files = routeFiles('app/api').filter((file) => !NOT_HERE.includes(file));
const cases = files.map((file) => ({
  file,
  handled: exportedIn(file),
  declared: DECLARED_ELSEWHERE[file] ?? exportedIn(file),
}));

describe('methods a route does not declare', () => {
  it('finds every route file and what it declares', () => {
    expect(files.length).toBeGreaterThan(30);
    expect(cases.find((c) => c.file === 'app/api/v1/admin/members/[userId]/route.ts')?.declared).toEqual([
      'PATCH',
      'DELETE',
    ]);
  });

  it.each(cases)(
    '$file: 405 in the error shape with Allow listing $declared, and OPTIONS says the same',
    async ({ file, handled, declared }) => {
      const route = (await import(/* @vite-ignore */ `@/${file.replace(/\.ts$/, '')}`)) as Partial<
        Record<Method, Handler>
      >;
      const allow = expectedAllow(declared);
      const undeclared = METHODS.filter(
        (method) => !handled.includes(method) && !(method === 'HEAD' && handled.includes('GET')),
      );
      // With GET handled and HEAD not exported, Next answers HEAD with the GET handler.
      if (handled.includes('GET')) expect(route.HEAD).toBeUndefined();
      for (const method of undeclared) {
        const handler = route[method];
        expect(handler, `${file} exports no ${method} answer`).toBeTypeOf('function');
        const response = await call(handler!, method);
        expect({
          method,
          status: response.status,
          allow: response.headers.get('allow'),
          type: response.headers.get('content-type'),
        }).toEqual({
          method,
          status: 405,
          allow,
          type: 'application/json',
        });
        expect(await response.json()).toMatchObject({
          error: { kind: 'malformed', code: 'method_not_allowed', message: expect.stringContaining(allow) },
        });
      }
      const options = await call(route.OPTIONS!, 'OPTIONS');
      expect({ status: options.status, allow: options.headers.get('allow') }).toEqual({ status: 204, allow });
    },
  );
});

describe('paths no route serves', () => {
  it.each(['/api/nope', '/api/v1/nope', '/api/v1/proposals/prp_1/nope', '/api/v2/proposals'])(
    '%s: a JSON 404 in the error shape, whatever the method',
    async (pathname) => {
      const route = (await import('@/app/api/[...path]/route')) as Record<Method, Handler>;
      for (const method of [...METHODS, 'OPTIONS'] as const) {
        const response = await call(route[method], method, `http://countersign.test${pathname}`);
        expect({ method, status: response.status, type: response.headers.get('content-type') }).toEqual({
          method,
          status: 404,
          type: 'application/json',
        });
        expect(await response.json()).toEqual({
          error: {
            kind: 'not_found',
            code: 'not_found',
            message: `There is no ${pathname} in this API; see /api/v1/openapi.json.`,
          },
        });
      }
    },
  );
});
