import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/api/openapi/document';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Routes the document leaves out on purpose (its `info.description` says why). */
const UNDOCUMENTED = new Set(['/api/auth/{...nextauth}', '/api/executor/{scope}', '/api/mcp']);

function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === 'route.ts' ? [full] : [];
  });
}

/** `app/api/v1/proposals/[id]/route.ts` → `/api/v1/proposals/{id}`. */
function openApiPath(file: string): string {
  const folder = path.relative('app', path.dirname(file)).split(path.sep).join('/');
  return `/${folder}`.replace(/\[([^\]]+)\]/g, '{$1}');
}

/** The HTTP methods a route file exports (`export async function GET`, `export const POST = …`). */
function exportedMethods(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  return METHODS.filter((method) => new RegExp(`export\\s+(?:async\\s+)?(?:function|const)\\s+${method}\\b`).test(source));
}

describe('the OpenAPI document and the route files', () => {
  const documented = new Set(
    Object.entries(openApiDocument('test').paths).flatMap(([route, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${route}`)),
  );
  const implemented = new Set(
    [...routeFiles('app/api'), ...routeFiles('app/.well-known')]
      .filter((file) => !UNDOCUMENTED.has(openApiPath(file)))
      .flatMap((file) => exportedMethods(file).map((method) => `${method} ${openApiPath(file)}`)),
  );

  it('finds the route files', () => {
    expect(implemented).toContain('POST /api/v1/proposals');
    expect(implemented).toContain('GET /.well-known/jwks.json');
  });

  it('documents every method of every route file, and nothing that does not exist', () => {
    expect([...implemented].sort()).toStrictEqual([...documented].sort());
  });
});
