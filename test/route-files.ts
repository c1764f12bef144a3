import fs from 'node:fs';
import path from 'node:path';

/** The HTTP methods a route file may export. */
export const ROUTE_FILE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Every `route.ts` below `dir`, as a `/`-separated path. */
export function routeFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === 'route.ts' ? [full.split(path.sep).join('/')] : [];
  });
}

/**
 * The HTTP methods a route file declares, read from its source as a reader sees them:
 * `export async function GET`, `export const POST = …`, `export const { GET } = handlers`,
 * `export { GET }` and `export { handler as GET }` — not the methods `otherMethods(…)` answers
 * with 405 (lib/http/methods.ts), which the file does not handle.
 */
export function declaredMethods(file: string): string[] {
  const source = fs.readFileSync(file, 'utf8');
  const declared = [...source.matchAll(/export\s+(?:async\s+)?(?:function|const|let)\s+([A-Z]+)\b/g)].map(
    ([, name]) => name!,
  );
  const listed = [...source.matchAll(/export\s+(?:const\s*)?\{([^}]*)\}(?!\s*=\s*otherMethods\b)/g)].flatMap(
    ([, names]) =>
      names!.split(',').map(
        (name) =>
          name
            .trim()
            .split(/\s+as\s+|\s*:\s*/)
            .pop()!,
      ),
  );
  return ROUTE_FILE_METHODS.filter((method) => declared.includes(method) || listed.includes(method));
}
