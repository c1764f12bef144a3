import { getDb } from '@/lib/database';
import type { ContractDocuments } from '@/lib/api/responses/reads';
import { tenantActions } from '@/lib/contracts/catalog';
import { contractDocuments } from '@/lib/contracts/documents';
import { chosenMembership } from '@/lib/dashboard/context';
import { errorResponse } from '@/lib/http/errors';
import { requirePrincipal } from '@/lib/http/principal';

export const dynamic = 'force-dynamic';

/**
 * Every contract version's input and output JSON Schema, for agents (key) and operators (session),
 * with the statuses of the caller's tenant (the key's; the tenant the dashboard shows).
 */
export async function GET(request: Request) {
  try {
    const db = await getDb();
    const principal = await requirePrincipal(db, request);
    const tenantId = principal.kind === 'agent' ? principal.agent.tenantId : (await chosenMembership(principal.operator))?.tenantId;
    const documents: ContractDocuments = contractDocuments(tenantId ? await tenantActions(db, tenantId) : undefined);
    // Statuses change when an admin rolls a version out: revalidate every time.
    return Response.json(documents, { headers: { 'Cache-Control': 'private, no-cache' } });
  } catch (error) {
    return errorResponse(error);
  }
}
