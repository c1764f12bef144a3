import { deprecationHeadersFor } from '@/lib/contracts/catalog';
import { notFound } from '@/lib/errors/domain-error';
import { principalRead } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { readableTenant } from '@/lib/http/principal';
import { getProposal } from '@/lib/proposals/queries';
import { loadProposalView, proposalViewJson } from '@/lib/proposals/view';
import { otherMethods } from '@/lib/http/methods';

export const dynamic = 'force-dynamic';

export const GET = principalRead<{ id: string }>(async ({ db, request, params: { id }, principal }) => {
  const tenantId = await readableTenant(db, principal, id);
  const proposal = tenantId ? await getProposal(db, tenantId, id) : undefined;
  if (!proposal) throw notFound();
  // An operator reads a proposal of a tenant they belong to (readableTenant), so this role exists.
  const membership = principal.kind === 'operator' ? principal.operator.memberships.find((m) => m.tenantId === proposal.tenantId) : undefined;
  const view = await loadProposalView(db, proposal, principal.kind === 'operator' && membership ? { userId: principal.operator.userId, role: membership.role } : undefined);
  // An agent reading a proposal of a deprecated version is told, as at intake.
  const headers = principal.kind === 'agent' ? await deprecationHeadersFor(db, proposal.tenantId, proposal.action, proposal.contractVersion) : {};
  return Response.json(proposalViewJson(view, publicOrigin(request), principal.kind), { headers });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
