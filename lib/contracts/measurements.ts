import 'server-only';
import { and, desc, eq, gte, inArray, isNotNull, lt, type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { intakeAttempts } from '@/db/schema';
import type { ActionModule } from '@/lib/actions/types';
import { MEASUREMENT_WINDOWS, type MeasurementWindow } from './windows';

/**
 * Contract measurements (issue 12, the seeds' "measure contracts across versions"): per action and
 * version over a window, computed in SQL on `intake_attempts_contract_idx` (tenant, action,
 * contract version, created_at). Rejections stay apart by kind — schema, authorization, business
 * rule — and are never folded into one "accuracy". Attempts without a readable action or version
 * (malformed bodies) belong to no version and are not counted here.
 */

export type VersionCounts = {
  version: number;
  attempts: number;
  accepted: number;
  replayed: number;
  rejected: { schema: number; authorization: number; businessRule: number; other: number };
  /** Attempts that repair nothing (an original request; a retry of a refused one counts again). */
  originals: number;
  /** Attempts that name `repairOf`. */
  repairs: number;
  /** Repair chains with a repair in this version, and those of them that a repair got accepted. */
  repairedChains: number;
  repairedAccepted: number;
};

export type CodeCount = { version: number; kind: string; code: string; count: number };
export type FieldCount = { version: number; field: string; code: string; count: number };
export type RatePoint = { version: number; at: string; attempts: number; rejected: number };
export type ShadowExample = {
  id: string;
  createdAt: string;
  requestId: string | null;
  proposalId: string | null;
  codes: string[];
};
export type ShadowComparison = {
  version: number;
  evaluated: number;
  /**
   * Shadow refuses what passed the deciding version's contract (then accepted, or refused later by Authority or a
   * business rule).
   */
  wouldRefuse: number;
  /** Shadow accepts what the deciding version's contract refused (`contract_violation`). */
  wouldAccept: number;
  wouldRefuseExamples: ShadowExample[];
  wouldAcceptExamples: ShadowExample[];
};

export type ActionMeasurements = {
  action: string;
  versions: VersionCounts[];
  topCodes: CodeCount[];
  topFields: FieldCount[];
  rate: RatePoint[];
  shadow: ShadowComparison[];
};

export type Measurements = {
  window: MeasurementWindow;
  since: string;
  until: string;
  bucket: string;
  actions: ActionMeasurements[];
};

const count = (condition?: SQL) =>
  condition ? sql<number>`(count(*) filter (where ${condition}))::int` : sql<number>`count(*)::int`;
const rejectedAs = (kinds: string[]) =>
  sql`${intakeAttempts.outcome} = 'rejected' and ${intakeAttempts.errorKind} in (${sql.join(
    kinds.map((kind) => sql`${kind}`),
    sql`, `,
  )})`;
const MEASURED_KINDS = ['schema', 'authorization', 'business_rule'];
/** Passed the deciding version's contract: admitted, or refused after Shape by Authority or a business rule. */
const PASSED_SHAPE = sql`(${intakeAttempts.outcome} <> 'rejected'
  or ${intakeAttempts.errorKind} in ('authorization', 'business_rule'))`;
const REFUSED_BY_CONTRACT = sql`${intakeAttempts.errorCode} = 'contract_violation'`;

/** The index's own prefix: one tenant, one action, its versions, the window. */
function inWindow(tenantId: string, action: ActionModule, since: Date, until: Date) {
  return and(
    eq(intakeAttempts.tenantId, tenantId),
    eq(intakeAttempts.action, action.name),
    inArray(
      intakeAttempts.contractVersion,
      action.contracts.map((contract) => contract.version),
    ),
    gte(intakeAttempts.createdAt, since),
    lt(intakeAttempts.createdAt, until),
  );
}

export function versionCountsQuery(db: Database, tenantId: string, action: ActionModule, since: Date, until: Date) {
  return db
    .select({
      version: sql<number>`${intakeAttempts.contractVersion}`,
      attempts: count(),
      accepted: count(sql`${intakeAttempts.outcome} = 'accepted'`),
      replayed: count(sql`${intakeAttempts.outcome} = 'replayed'`),
      schema: count(rejectedAs(['schema'])),
      authorization: count(rejectedAs(['authorization'])),
      businessRule: count(rejectedAs(['business_rule'])),
      other: count(
        sql`${intakeAttempts.outcome} = 'rejected'
          and (${intakeAttempts.errorKind} is null or ${intakeAttempts.errorKind} not in (${sql.join(
            MEASURED_KINDS.map((kind) => sql`${kind}`),
            sql`, `,
          )}))`,
      ),
      originals: count(sql`${intakeAttempts.repairOf} is null and ${intakeAttempts.outcome} <> 'replayed'`),
      repairs: count(sql`${intakeAttempts.repairOf} is not null and ${intakeAttempts.outcome} <> 'replayed'`),
    })
    .from(intakeAttempts)
    .where(inWindow(tenantId, action, since, until))
    .groupBy(intakeAttempts.contractVersion);
}

/** Repair chains per version (distinct key and original request), over the repairs only. */
export function repairChainsQuery(db: Database, tenantId: string, action: ActionModule, since: Date, until: Date) {
  const chain = sql`(${intakeAttempts.agentKeyId}, ${intakeAttempts.rootRequestId})`;
  return db
    .select({
      version: sql<number>`${intakeAttempts.contractVersion}`,
      repairedChains: sql<number>`count(distinct ${chain})::int`,
      repairedAccepted: sql<number>`(count(distinct ${chain})
        filter (where ${intakeAttempts.outcome} = 'accepted'))::int`,
    })
    .from(intakeAttempts)
    .where(and(inWindow(tenantId, action, since, until), isNotNull(intakeAttempts.repairOf)))
    .groupBy(intakeAttempts.contractVersion);
}

export function rateQuery(
  db: Database,
  tenantId: string,
  action: ActionModule,
  since: Date,
  until: Date,
  bucket: string,
) {
  const at = sql`date_bin(${bucket}::interval, ${intakeAttempts.createdAt}, ${since.toISOString()}::timestamptz)`;
  return (
    db
      .select({
        version: sql<number>`${intakeAttempts.contractVersion}`,
        epoch: sql<number>`extract(epoch from ${at})::float8`,
        attempts: count(),
        rejected: count(sql`${intakeAttempts.outcome} = 'rejected'`),
      })
      .from(intakeAttempts)
      .where(inWindow(tenantId, action, since, until))
      // By position: the bucket expression carries parameters, so it cannot be repeated.
      .groupBy(sql`1, 2`)
      .orderBy(sql`2`)
  );
}

const TOP = 5;

function topPerVersion<T extends { version: number }>(rows: T[]): T[] {
  const seen = new Map<number, number>();
  return rows.filter((row) => {
    const n = (seen.get(row.version) ?? 0) + 1;
    seen.set(row.version, n);
    return n <= TOP;
  });
}

async function topCodes(
  db: Database,
  tenantId: string,
  action: ActionModule,
  since: Date,
  until: Date,
): Promise<CodeCount[]> {
  const n = count();
  const rows = await db
    .select({
      version: sql<number>`${intakeAttempts.contractVersion}`,
      kind: sql<string>`coalesce(${intakeAttempts.errorKind}, '')`,
      code: sql<string>`coalesce(${intakeAttempts.errorCode}, '')`,
      count: n,
    })
    .from(intakeAttempts)
    .where(and(inWindow(tenantId, action, since, until), eq(intakeAttempts.outcome, 'rejected')))
    .groupBy(intakeAttempts.contractVersion, intakeAttempts.errorKind, intakeAttempts.errorCode)
    .orderBy(desc(n));
  return topPerVersion(rows);
}

async function topFields(
  db: Database,
  tenantId: string,
  action: ActionModule,
  since: Date,
  until: Date,
): Promise<FieldCount[]> {
  const issue = sql`jsonb_to_recordset(${intakeAttempts.issues}) as issue(field text, code text)`;
  const n = count();
  const rows = await db
    .select({
      version: sql<number>`${intakeAttempts.contractVersion}`,
      field: sql<string>`issue.field`,
      code: sql<string>`issue.code`,
      count: n,
    })
    .from(intakeAttempts)
    .crossJoinLateral(issue)
    .where(and(inWindow(tenantId, action, since, until), isNotNull(intakeAttempts.issues)))
    .groupBy(intakeAttempts.contractVersion, sql`issue.field`, sql`issue.code`)
    .orderBy(desc(n));
  return topPerVersion(rows);
}

const EXAMPLES = 3;

async function shadowComparisons(
  db: Database,
  tenantId: string,
  action: ActionModule,
  since: Date,
  until: Date,
): Promise<ShadowComparison[]> {
  const shadow = sql`jsonb_to_recordset(${intakeAttempts.shadow})
    as verdict(version int, accepted boolean, codes jsonb)`;
  const where = and(inWindow(tenantId, action, since, until), isNotNull(intakeAttempts.shadow));
  const refuse = sql`not verdict.accepted and ${PASSED_SHAPE}`;
  const accept = sql`verdict.accepted and ${REFUSED_BY_CONTRACT}`;
  const totals = await db
    .select({
      version: sql<number>`verdict.version`,
      evaluated: count(),
      wouldRefuse: count(refuse),
      wouldAccept: count(accept),
    })
    .from(intakeAttempts)
    .crossJoinLateral(shadow)
    .where(where)
    .groupBy(sql`verdict.version`);
  const examples = (condition: SQL, version: number) =>
    db
      .select({
        id: intakeAttempts.id,
        createdAt: intakeAttempts.createdAt,
        requestId: intakeAttempts.requestId,
        proposalId: intakeAttempts.proposalId,
        codes: sql<string[]>`verdict.codes`,
      })
      .from(intakeAttempts)
      .crossJoinLateral(shadow)
      .where(and(where, sql`verdict.version = ${version}`, condition))
      .orderBy(desc(intakeAttempts.createdAt))
      .limit(EXAMPLES);
  const asExample = (row: {
    id: string;
    createdAt: Date;
    requestId: string | null;
    proposalId: string | null;
    codes: string[] | null;
  }): ShadowExample => ({
    ...row,
    createdAt: row.createdAt.toISOString(),
    codes: row.codes ?? [],
  });
  return Promise.all(
    totals.map(async (total) => ({
      ...total,
      wouldRefuseExamples: total.wouldRefuse > 0 ? (await examples(refuse, total.version)).map(asExample) : [],
      wouldAcceptExamples: total.wouldAccept > 0 ? (await examples(accept, total.version)).map(asExample) : [],
    })),
  );
}

/** Every action's measurements in a tenant over `window`, ending at `now`. */
export async function contractMeasurements(
  db: Database,
  tenantId: string,
  actions: readonly ActionModule[],
  window: MeasurementWindow,
  now = new Date(),
): Promise<Measurements> {
  const { ms, bucket } = MEASUREMENT_WINDOWS[window];
  const since = new Date(now.getTime() - ms);
  const measured = await Promise.all(
    actions.map(async (action): Promise<ActionMeasurements> => {
      const [counts, chains, codes, fields, rate, shadow] = await Promise.all([
        versionCountsQuery(db, tenantId, action, since, now),
        repairChainsQuery(db, tenantId, action, since, now),
        topCodes(db, tenantId, action, since, now),
        topFields(db, tenantId, action, since, now),
        rateQuery(db, tenantId, action, since, now, bucket),
        shadowComparisons(db, tenantId, action, since, now),
      ]);
      const versions = action.contracts.map((contract): VersionCounts => {
        const row = counts.find((c) => c.version === contract.version);
        const repaired = chains.find((c) => c.version === contract.version);
        return {
          version: contract.version,
          attempts: row?.attempts ?? 0,
          accepted: row?.accepted ?? 0,
          replayed: row?.replayed ?? 0,
          rejected: {
            schema: row?.schema ?? 0,
            authorization: row?.authorization ?? 0,
            businessRule: row?.businessRule ?? 0,
            other: row?.other ?? 0,
          },
          originals: row?.originals ?? 0,
          repairs: row?.repairs ?? 0,
          repairedChains: repaired?.repairedChains ?? 0,
          repairedAccepted: repaired?.repairedAccepted ?? 0,
        };
      });
      const points = rate.map(({ version, epoch, attempts, rejected }) => ({
        version,
        at: new Date(Number(epoch) * 1000).toISOString(),
        attempts,
        rejected,
      }));
      return {
        action: action.name,
        versions,
        topCodes: codes,
        topFields: fields,
        rate: points,
        shadow: shadow.sort((a, b) => a.version - b.version),
      };
    }),
  );
  return { window, since: since.toISOString(), until: now.toISOString(), bucket, actions: measured };
}
