import type { ContractDocuments } from '@/lib/api/responses/reads';
import { contractDocuments } from '@/lib/contracts/documents';
import { tenantActions } from '@/lib/definitions/catalog';
import { otherMethods } from '@/lib/http/methods';
import { principalRead } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/**
 * Every contract version's input and output JSON Schema, for agents (key) and operators (session),
 * with the statuses of the caller's tenant (the key's; the tenant the viewer is looking at).
 */
export const GET = principalRead(async ({ db, principal }) => {
  const tenantId = principal.kind === 'agent' ? principal.agent.tenantId : principal.membership?.tenantId;
  const documents: ContractDocuments = contractDocuments(tenantId ? await tenantActions(db, tenantId) : undefined);
  // Statuses change when an admin rolls a version out: revalidate every time.
  return Response.json(documents, { headers: { 'Cache-Control': 'private, no-cache' } });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
