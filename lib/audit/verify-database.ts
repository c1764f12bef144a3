import { and, asc, eq, gt } from 'drizzle-orm';
import type { Database } from '@/db';
import { auditEvents, auditHeads } from '@/db/schema';
import { chainAllPending, chainPending } from '@/lib/events/chainer';
import { type ChainReport, type CheckpointClaim, chainVerifier } from './verify';

const PAGE = 5_000;

/**
 * Recomputes every stored chain (or one tenant's) from genesis, page by page with constant memory,
 * against the head the database keeps and any signed checkpoints: one report per tenant. Events
 * committed and not yet chained are chained first, so the report covers every one of them.
 */
export async function verifyStoredChains(
  db: Database,
  options: { tenant?: string; checkpoints?: readonly CheckpointClaim[] } = {},
): Promise<ChainReport[]> {
  await (options.tenant ? chainPending(db, options.tenant) : chainAllPending(db));
  const heads = await db
    .select()
    .from(auditHeads)
    .where(options.tenant ? eq(auditHeads.tenantId, options.tenant) : undefined)
    .orderBy(asc(auditHeads.tenantId));
  const reports: ChainReport[] = [];
  for (const head of heads) {
    const verifier = chainVerifier(head.tenantId, options.checkpoints);
    let after = 0;
    for (;;) {
      const rows = await db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.tenantId, head.tenantId), gt(auditEvents.seq, after)))
        .orderBy(asc(auditEvents.seq))
        .limit(PAGE);
      verifier.push(rows);
      if (rows.length < PAGE) break;
      after = rows.at(-1)!.seq;
    }
    reports.push(verifier.finish({ seq: head.seq, hash: head.hash }));
  }
  return reports;
}
