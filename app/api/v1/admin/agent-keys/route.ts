import { agentKeyCreateRequest } from '@/lib/admin/agent-key-requests';
import { issueAgentKey, listTenantAgentKeys } from '@/lib/admin/agent-keys';
import type { AgentKeyList, IssuedAgentKey } from '@/lib/api/responses/admin';
import { notFound } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { adminMutation, adminRoute } from '@/lib/http/operator-route';

export const dynamic = 'force-dynamic';

/** Settings → Agent keys: the tenant's keys (never a key or its hash), with their state now. */
export const GET = adminRoute(async ({ db, admin }) =>
  Response.json({ agentKeys: await listTenantAgentKeys(db, admin.tenantId) } satisfies AgentKeyList),
);

/** Issues a key; the key itself is in this answer and never again. Audited `agent_key.created`. */
export const POST = adminMutation(agentKeyCreateRequest, async ({ db, admin, body }) => {
  const created = await issueAgentKey(db, admin.tenantId, { type: 'user', id: admin.operator.userId }, body);
  if (!created) throw notFound('tenant');
  return Response.json(created satisfies IssuedAgentKey, { status: 201 });
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
