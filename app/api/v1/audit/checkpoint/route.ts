import { getDb } from '@/lib/database';
import type { Checkpoint } from '@/lib/api/responses/reads';
import { currentCheckpoint } from '@/lib/audit/checkpoint-store';
import { commandKeys } from '@/lib/commands/keys';
import { errorResponse } from '@/lib/http/errors';
import { requireMember } from '@/lib/http/principal';

export const dynamic = 'force-dynamic';

/**
 * A signed checkpoint of the current tenant's audit chain (docs/design.md §8): `{tenant, seq, hash, at}`
 * as an EdDSA JWS of type `countersign-checkpoint+jwt`, with the public keys that verify it. Save
 * the answer and give it to `npm run cli -- audit:verify --checkpoint FILE` later.
 */
export async function GET(request: Request) {
  try {
    const db = await getDb();
    const member = await requireMember(db, request);
    const keys = await commandKeys();
    const answer: Checkpoint = await currentCheckpoint(db, member.tenantId, keys);
    return Response.json(answer, { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return errorResponse(error);
  }
}
