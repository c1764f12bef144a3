import type { Checkpoint } from '@/lib/api/responses/reads';
import { currentCheckpoint } from '@/lib/audit/checkpoint-store';
import { otherMethods } from '@/lib/http/methods';
import { memberRead } from '@/lib/http/operator-route';
import { commandKeys } from '@/lib/signing/keys';

export const dynamic = 'force-dynamic';

/**
 * A signed checkpoint of the current tenant's audit chain (docs/design.md §8): `{tenant, seq, hash, at}`
 * as an EdDSA JWS of type `countersign-checkpoint+jwt`, with the public keys that verify it. Save
 * the answer and give it to `npm run cli -- audit:verify --checkpoint FILE` later.
 */
export const GET = memberRead(async ({ db, member }) => {
  const answer: Checkpoint = await currentCheckpoint(db, member.tenantId, await commandKeys());
  return Response.json(answer, { headers: { 'cache-control': 'no-store' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
