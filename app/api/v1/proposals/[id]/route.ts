import { getDb } from '@/db';
import { errorResponse, notFound } from '@/lib/http/errors';
import { publicOrigin } from '@/lib/http/origin';
import { readableTenant, requirePrincipal } from '@/lib/http/principal';
import { decisionsFor, getProposal } from '@/lib/proposals/queries';
import { executionStateFor, proposalDetail } from '@/lib/proposals/view';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    const db = await getDb();
    const principal = await requirePrincipal(db, request);
    const tenantId = await readableTenant(db, principal, id);
    const proposal = tenantId ? await getProposal(db, tenantId, id) : undefined;
    if (!proposal) throw notFound();
    const [decisions, state] = await Promise.all([decisionsFor(db, proposal.tenantId, proposal.id), executionStateFor(db, proposal.tenantId, proposal.id)]);
    return Response.json(proposalDetail(proposal, decisions, publicOrigin(request), principal.kind, state));
  } catch (error) {
    return errorResponse(error);
  }
}
