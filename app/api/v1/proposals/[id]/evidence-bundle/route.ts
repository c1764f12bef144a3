import { getDb } from '@/lib/database';
import { buildEvidenceBundle } from '@/lib/audit/bundle';
import { commandKeys } from '@/lib/commands/keys';
import { errorResponse, notFound } from '@/lib/http/errors';
import { readableTenant, requireOperatorWithoutKey } from '@/lib/http/principal';

export const dynamic = 'force-dynamic';

/** One proposal's evidence bundle as a JSON download, for members of its tenant; `npm run cli -- bundle:verify FILE` checks it offline. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    const db = await getDb();
    const operator = await requireOperatorWithoutKey(db, request);
    const tenantId = await readableTenant(db, { kind: 'operator', operator }, id);
    const bundle = tenantId ? await buildEvidenceBundle(db, tenantId, id, await commandKeys()) : undefined;
    if (!bundle) throw notFound();
    return new Response(`${JSON.stringify(bundle, null, 2)}\n`, {
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'content-disposition': `attachment; filename="evidence-${bundle.proposal.id}.json"`,
        'cache-control': 'no-store',
      },
    });
  } catch (error) {
    return errorResponse(error);
  }
}
