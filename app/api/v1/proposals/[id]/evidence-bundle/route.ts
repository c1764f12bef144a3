import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { viewerRead } from '@/lib/http/operator-route';
import { readableTenant } from '@/lib/http/principal';
import { commandKeys } from '@/lib/signing/keys';

export const dynamic = 'force-dynamic';

/**
 * One proposal's evidence bundle as a JSON download, for members of its tenant; `npm run cli -- bundle:verify FILE`
 * checks it offline.
 */
export const GET = viewerRead<{ id: string }>(async ({ db, params: { id }, viewer }) => {
  const tenantId = await readableTenant(db, { kind: 'operator', ...viewer }, id);
  const bundle = tenantId ? await buildEvidenceBundle(db, tenantId, id, await commandKeys()) : undefined;
  if (!bundle) throw notFound();
  return new Response(`${JSON.stringify(bundle, null, 2)}\n`, {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="evidence-${bundle.proposal.id}.json"`,
      'cache-control': 'no-store',
    },
  });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
