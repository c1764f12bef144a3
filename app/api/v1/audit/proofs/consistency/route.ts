import { consistencyProofFile, proofQuery } from '@/lib/audit/tlog/proof-api';
import { otherMethods } from '@/lib/http/methods';
import { memberRead } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * `?from=<size>&to=<size>`: the RFC 6962 proof that the current tenant's tree of `from` events is a
 * prefix of its tree of `to` events, to check two checkpoints against each other (docs/evidence.md,
 * "The log format"). Any member; the tenant is the session's.
 */
export const GET = memberRead(async ({ db, request, member }) => {
  const { from, to } = proofQuery(new URL(request.url).searchParams, ['from', 'to']);
  const proof = await consistencyProofFile(db, member.tenantId, from, to);
  return Response.json(proof, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
