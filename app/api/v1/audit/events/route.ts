import { auditExportResponse } from '@/lib/audit/export';
import { parseHistoryParams } from '@/lib/audit/history-filters';
import { invalidQuery } from '@/lib/errors/refusal';
import { otherMethods } from '@/lib/http/methods';
import { memberRead } from '@/lib/http/operator-route';
import { commandKeys } from '@/lib/signing/keys';

export const dynamic = 'force-dynamic';

/**
 * The current tenant's audit events as a download (docs/design.md §8):
 * `?format=csv|jsonl&tab=&person=&agent=&action=&outcome=&type=&from=&to=&tz=&q=`, the history page's
 * filters; `tab=decisions` exports every event of the proposals the Decisions view shows. A session only (an agent key
 * never reads the trail); streamed oldest first with every hashed field, `prevHash` and `hash`; JSON Lines ends with a
 * checkpoint signed for its last row. Bad filters or format are a 400 `invalid_query` that says which.
 */
export const GET = memberRead(async ({ db, request, member }) => {
  const parsed = parseHistoryParams(new URL(request.url).searchParams, 'export');
  if (!parsed.ok) throw invalidQuery(parsed.messages);
  return auditExportResponse(
    db,
    member.tenantId,
    { filters: parsed.filters, of: parsed.exportOf ?? 'events' },
    parsed.format ?? 'jsonl',
    await commandKeys(),
  );
});

/** Every other method: 405 with `Allow` (lib/http/methods.ts). */
export const { POST, PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET });
