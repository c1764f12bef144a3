import { count, eq, type SQLWrapper, sql } from 'drizzle-orm';
import type { Database } from '@/db/client';
import { auditEvents, auditPending, decisions, intakeAttempts, outbox, proposals } from '@/db/schema';
import { chainAllPending, chainPending } from '@/lib/events/chainer';

export type RowCounts = {
  proposals: number;
  decisions: number;
  auditEvents: number;
  outbox: number;
  intakeAttempts: number;
};

/**
 * Row counts of every table a state change writes to: compare before and after to prove "nothing
 * was written". `auditEvents` counts events recorded, chained or still pending (works inside a
 * transaction, where nothing is chained yet).
 */
export async function rowCounts(db: Database): Promise<RowCounts> {
  const [p] = await db.select({ n: count() }).from(proposals);
  const [d] = await db.select({ n: count() }).from(decisions);
  // One statement: an event the chainer moves meanwhile is counted once.
  const recorded = db
    .select({ tenantId: auditEvents.tenantId })
    .from(auditEvents)
    .unionAll(db.select({ tenantId: auditPending.tenantId }).from(auditPending))
    .as('recorded');
  const [a] = await db.select({ n: count() }).from(recorded);
  const [o] = await db.select({ n: count() }).from(outbox);
  const [i] = await db.select({ n: count() }).from(intakeAttempts);
  return {
    proposals: p?.n ?? 0,
    decisions: d?.n ?? 0,
    auditEvents: a?.n ?? 0,
    outbox: o?.n ?? 0,
    intakeAttempts: i?.n ?? 0,
  };
}

export async function proposalRow(db: Database, id: string) {
  const [row] = await db.select().from(proposals).where(eq(proposals.id, id)).limit(1);
  if (!row) throw new Error(`No proposal ${id}`);
  return row;
}

/** A proposal's audit events, every tenant's pending ones chained first. */
export async function auditRowsFor(db: Database, proposalId: string) {
  await chainAllPending(db);
  return db
    .select()
    .from(auditEvents)
    .where(eq(auditEvents.proposalId, proposalId))
    .orderBy(auditEvents.tenantId, auditEvents.seq);
}

/** A tenant's chain, its pending events chained first. */
export async function auditChain(db: Database, tenantId: string) {
  await chainPending(db, tenantId);
  return db.select().from(auditEvents).where(eq(auditEvents.tenantId, tenantId)).orderBy(auditEvents.seq);
}

/** The text of a database error, including the driver error drizzle wraps (message, cause, code). */
export function databaseErrorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    parts.push(current.message);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') parts.push(`code=${code}`);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' | ');
}

/** PostgreSQL's plan for a query, as text (`analyze` runs it and adds timings and buffers). */
export async function explainPlan(db: Database, query: SQLWrapper, analyze = false): Promise<string> {
  const result = await db.execute(analyze ? sql`explain (analyze, buffers) ${query}` : sql`explain ${query}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, string>[];
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

/** A node of PostgreSQL's EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) plan, the fields tests read named. */
export type AnalyzedNode = {
  'Node Type': string;
  'Index Name'?: string;
  'Subplan Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: AnalyzedNode[];
};

/** Runs a query under EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) on PostgreSQL and answers its plan's top node. */
export async function analyzedPlan(db: Database, query: SQLWrapper): Promise<AnalyzedNode> {
  const result = await db.execute(sql`explain (analyze, buffers, format json) ${query}`);
  const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as Record<string, unknown>[];
  const plan = Object.values(rows[0]!)[0];
  return ((typeof plan === 'string' ? JSON.parse(plan) : plan) as { Plan: AnalyzedNode }[])[0]!.Plan;
}

/** Every node of a plan, depth first. */
export function planNodes(node: AnalyzedNode): AnalyzedNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}
