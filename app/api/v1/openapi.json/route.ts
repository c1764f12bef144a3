import { openApiDocument } from '@/lib/api/openapi/document';
import { otherMethods } from '@/lib/http/methods';
import packageJson from '@/package.json';

/** Built once per server from the same zod schemas the handlers answer with; the same for everyone, so cacheable. */
const document = JSON.stringify(openApiDocument(packageJson.version));

/** The OpenAPI 3.1 document of the API: public (it holds nothing tenant-specific), like the JWKS. */
export function GET() {
  return new Response(document, {
    headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=300' },
  });
}

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
