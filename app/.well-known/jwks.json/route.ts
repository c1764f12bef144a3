import type { Jwks } from '@/lib/api/responses/reads';
import { commandKeys } from '@/lib/signing/keys';

export const dynamic = 'force-dynamic';

/** The public keys that verify signed commands (docs/design.md §7): kty, crv, x, kid, alg, use — never `d`. */
export async function GET() {
  const { jwks } = await commandKeys();
  return Response.json({ keys: jwks } satisfies Jwks, { headers: { 'cache-control': 'public, max-age=300' } });
}
