import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/api/openapi/document';
import { declaredMethods, routeFiles } from './route-files';

/** next-auth's own endpoints (sign-in, sign-out, session, CSRF): the document names them in its `session` scheme only. */
const UNDOCUMENTED = new Set(['/api/auth/{...nextauth}']);

/** The catch-all that answers a JSON 404 for a path no route serves: no operation, every method. */
const NO_SUCH_PATH = '/api/{...path}';

/**
 * Methods a route exports only to refuse them with 405 (the stateless MCP server opens no stream
 * and has no session to end), as the MCP operation's description says.
 */
const REFUSED = new Set(['GET /api/mcp', 'DELETE /api/mcp']);

/** `app/api/v1/proposals/[id]/route.ts` → `/api/v1/proposals/{id}`. */
function openApiPath(file: string): string {
  const folder = path.relative('app', path.dirname(file)).split(path.sep).join('/');
  return `/${folder}`.replace(/\[([^\]]+)\]/g, '{$1}');
}

describe('the OpenAPI document and the route files', () => {
  const documented = new Set(
    Object.entries(openApiDocument('test').paths).flatMap(([route, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`),
    ),
  );
  const implemented = new Set(
    [...routeFiles('app/api'), ...routeFiles('app/.well-known')]
      .filter((file) => !UNDOCUMENTED.has(openApiPath(file)) && openApiPath(file) !== NO_SUCH_PATH)
      .flatMap((file) => declaredMethods(file).map((method) => `${method} ${openApiPath(file)}`))
      .filter((operation) => !REFUSED.has(operation)),
  );

  it('finds the route files', () => {
    expect(implemented).toContain('POST /api/v1/proposals');
    expect(implemented).toContain('GET /.well-known/jwks.json');
    expect(implemented).toContain('POST /api/executor/{scope}');
    expect(implemented).toContain('POST /api/mcp');
  });

  it("leaves out only methods that exist: next-auth's and the ones refused with 405", () => {
    const exported = routeFiles('app/api').flatMap((file) =>
      declaredMethods(file).map((method) => `${method} ${openApiPath(file)}`),
    );
    expect(exported.filter((operation) => REFUSED.has(operation)).sort()).toStrictEqual([...REFUSED].sort());
    expect(exported.filter((operation) => UNDOCUMENTED.has(operation.split(' ')[1]!)).sort()).toStrictEqual([
      'GET /api/auth/{...nextauth}',
      'POST /api/auth/{...nextauth}',
    ]);
  });

  it('documents every method of every route file, and nothing that does not exist', () => {
    expect([...implemented].sort()).toStrictEqual([...documented].sort());
  });
});
