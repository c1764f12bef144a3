import { getDb } from '@/lib/database';
import { deprecationHeadersFor } from '@/lib/contracts/catalog';
import { errorResponse, notFound } from '@/lib/http/errors';
import { publicOrigin } from '@/lib/http/origin';
import { readableTenant, requirePrincipal } from '@/lib/http/principal';
import { getProposal } from '@/lib/proposals/queries';
import { loadProposalView, proposalViewJson } from '@/lib/proposals/view';

export const dynamic = 'force-dynamic';

export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const { id } = await params;
    const db = await getDb();
    const principal = await requirePrincipal(db, request);
    const tenantId = await readableTenant(db, principal, id);
    const proposal = tenantId ? await getProposal(db, tenantId, id) : undefined;
    if (!proposal) throw notFound();
    // An operator reads a proposal of a tenant they belong to (readableTenant), so this role exists.
    const membership = principal.kind === 'operator' ? principal.operator.memberships.find((m) => m.tenantId === proposal.tenantId) : undefined;
    const view = await loadProposalView(db, proposal, principal.kind === 'operator' && membership ? { userId: principal.operator.userId, role: membership.role } : undefined);
    // An agent reading a proposal of a deprecated version is told, as at intake.
    const headers = principal.kind === 'agent' ? await deprecationHeadersFor(db, proposal.tenantId, proposal.action, proposal.contractVersion) : {};
    return Response.json(proposalViewJson(view, publicOrigin(request), principal.kind), { headers });
  } catch (error) {
    return errorResponse(error);
  }
}
