import { getDb } from '@/lib/database';
import { auditExportResponse } from '@/lib/audit/export';
import { parseHistoryParams } from '@/lib/audit/history-filters';
import { ApiError, errorResponse, unauthenticated } from '@/lib/http/errors';
import { requireMember } from '@/lib/http/principal';

export const dynamic = 'force-dynamic';

/**
 * The current tenant's audit events as a download (docs/design.md §8):
 * `?format=csv|jsonl&tab=&person=&agent=&action=&outcome=&type=&from=&to=&tz=&q=`, the history page's
 * filters; `tab=decisions` exports every event of the proposals the Decisions view shows. A session only (an agent key never reads the trail); streamed oldest first with every
 * hashed field, `prevHash` and `hash`. Bad filters or format are a 400 `invalid_query` that says which.
 */
export async function GET(request: Request) {
  try {
    if (request.headers.has('authorization')) throw unauthenticated('The audit export takes a dashboard session, never an agent key.');
    const db = await getDb();
    const member = await requireMember(db, request);
    const parsed = parseHistoryParams(new URL(request.url).searchParams, 'export');
    if (!parsed.ok) throw new ApiError(400, 'malformed', 'invalid_query', parsed.messages.join(' '), { messages: parsed.messages });
    return auditExportResponse(db, member.tenantId, { filters: parsed.filters, of: parsed.exportOf ?? 'events' }, parsed.format ?? 'jsonl');
  } catch (error) {
    return errorResponse(error);
  }
}
