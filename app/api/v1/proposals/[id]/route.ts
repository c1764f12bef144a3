import { proposalViewJson } from '@/lib/api/responses/proposal-json';
import { readProposalView } from '@/lib/decisions/proposal-view';
import { deprecationHeadersFor } from '@/lib/definitions/catalog';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { principalRead } from '@/lib/http/operator-route';
import { publicOrigin } from '@/lib/http/origin';
import { readableTenant } from '@/lib/http/principal';
import { recordServed } from '@/lib/oversight/views';

export const dynamic = 'force-dynamic';

export const GET = principalRead<{ id: string }>(async ({ db, request, params: { id }, principal }) => {
  const tenantId = await readableTenant(db, principal, id);
  // An operator reads a proposal of a tenant they belong to (readableTenant), so this role exists.
  const membership =
    principal.kind === 'operator' ? principal.operator.memberships.find((m) => m.tenantId === tenantId) : undefined;
  const viewer =
    principal.kind === 'operator' && membership
      ? { userId: principal.operator.userId, role: membership.role }
      : undefined;
  // The proposal and its execution from one snapshot: never a status beside an outcome it has not reached.
  const view = tenantId ? await readProposalView(db, tenantId, id, viewer) : undefined;
  if (!view) throw notFound();
  const { proposal } = view;
  // Served to a person (not an agent, not a HEAD that serves nothing): their first look, for the oversight figures.
  if (viewer && request.method === 'GET') await recordServed(db, proposal, { userId: viewer.userId, channel: 'api' });
  // An agent reading a proposal of a deprecated version is told, as at intake.
  const headers =
    principal.kind === 'agent'
      ? await deprecationHeadersFor(db, proposal.tenantId, proposal.action, proposal.contractVersion)
      : {};
  return Response.json(proposalViewJson(view, publicOrigin(request), principal.kind), { headers });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
