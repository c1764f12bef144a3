import { inclusionProofFile, proofQuery } from '@/lib/audit/tlog/proof-api';
import { otherMethods } from '@/lib/http/methods';
import { memberRead } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * `?seq=<n>&size=<size>`: the RFC 6962 proof that the current tenant's event #seq is in its tree
 * of its first `size` events, to check against a checkpoint of that size (docs/evidence.md, "The
 * log format"). Any member; the tenant is the session's.
 */
export const GET = memberRead(async ({ db, request, member }) => {
  const { seq, size } = proofQuery(new URL(request.url).searchParams, ['seq', 'size']);
  const proof = await inclusionProofFile(db, member.tenantId, seq, size);
  return Response.json(proof, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
