import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type Proposal, type ProposalStatus, proposals, resourceClaims } from '@/db/schema';
import { allActions, findAction } from '@/lib/actions/registry';
import type { ActionModule, OpenClaims } from '@/lib/actions/types';

/** Proposals that still hold a claim on their resource (e.g. on an order's refundable balance). */
export const OPEN_STATUSES = ['pending_approval', 'approved', 'executing'] as const satisfies readonly ProposalStatus[];

export const isOpen = (status: ProposalStatus) => (OPEN_STATUSES as readonly ProposalStatus[]).includes(status);

/** The fields of a proposal its claim is read from (`claimAmount` once it is stored). */
export type Claimant = Pick<Proposal, 'tenantId' | 'resourceKey' | 'action' | 'payload'> &
  Partial<Pick<Proposal, 'claimAmount'>>;

/** What an action's arguments claim of their resource, as stored with the proposal: null when it claims nothing. */
export function claimAmountOf(action: Pick<ActionModule, 'claimField'>, args: Record<string, unknown>): string | null {
  const value = action.claimField ? Number(args[action.claimField]) : Number.NaN;
  return Number.isFinite(value) ? String(value) : null;
}

/**
 * What one proposal claims on its resource: the amount stored with it at intake, or (a proposal
 * from before it was stored, or one not written yet) its action's claim field; 0 when none.
 */
export function claimOf(
  proposal: Pick<Proposal, 'action' | 'payload'> & Partial<Pick<Proposal, 'claimAmount'>>,
  action: Pick<ActionModule, 'claimField'> | undefined = findAction(proposal.action),
): number {
  if (proposal.claimAmount !== undefined && proposal.claimAmount !== null) return Number(proposal.claimAmount);
  const amount = action ? claimAmountOf(action, proposal.payload.args) : null;
  return amount === null ? 0 : Number(amount);
}

/** The same, in SQL, per row of `proposals`: the stored amount, else one CASE over the shipped actions that claim. */
function claimExpression(): SQL {
  const claiming = allActions().filter((action) => action.claimField);
  const cases = claiming.map(
    (action) => sql`when ${action.name} then (${proposals.payload} -> 'args' ->> ${action.claimField})::numeric`,
  );
  const shipped = claiming.length === 0 ? sql`0` : sql`case ${proposals.action} ${sql.join(cases, sql` `)} else 0 end`;
  return sql`coalesce(${proposals.claimAmount}, ${shipped})`;
}

const toClaims = (row: { count: number | string; total: number | string } | undefined): OpenClaims => ({
  count: Number(row?.count ?? 0),
  total: Number(row?.total ?? 0),
});

/**
 * What the open proposals on a resource claim, counted and summed over the proposals themselves.
 * The claims row holds the same; this is what it is created from and checked against.
 */
export async function openClaimsFromScratch(db: Database, tenantId: string, resourceKey: string): Promise<OpenClaims> {
  const [row] = await db
    .select({ count: count(), total: sql<string>`coalesce(sum(${claimExpression()}), 0)::text` })
    .from(proposals)
    .where(
      and(
        eq(proposals.tenantId, tenantId),
        eq(proposals.resourceKey, resourceKey),
        inArray(proposals.status, [...OPEN_STATUSES]),
      ),
    );
  return toClaims(row);
}

/** Every resource's open claims from scratch, for reconciliation. */
export async function allOpenClaimsFromScratch(
  db: Database,
): Promise<{ tenantId: string; resourceKey: string; claims: OpenClaims }[]> {
  const rows = await db
    .select({
      tenantId: proposals.tenantId,
      resourceKey: sql<string>`${proposals.resourceKey}`,
      count: count(),
      total: sql<string>`coalesce(sum(${claimExpression()}), 0)::text`,
    })
    .from(proposals)
    .where(and(inArray(proposals.status, [...OPEN_STATUSES]), sql`${proposals.resourceKey} is not null`))
    .groupBy(proposals.tenantId, proposals.resourceKey);
  return rows.map((row) => ({ tenantId: row.tenantId, resourceKey: row.resourceKey, claims: toClaims(row) }));
}

const claimsColumns = { count: resourceClaims.openCount, total: resourceClaims.openTotal };
const rowOf = (tenantId: string, resourceKey: string) =>
  and(eq(resourceClaims.tenantId, tenantId), eq(resourceClaims.resourceKey, resourceKey));

/**
 * Creates a resource's claims row from the sum from scratch, unless another transaction did (then
 * this waits for it to commit, as for any unique key, and answers undefined). A row created here
 * already counts every status change this transaction made before.
 */
async function createFromScratch(tx: Database, tenantId: string, resourceKey: string): Promise<OpenClaims | undefined> {
  const [row] = await tx
    .insert(resourceClaims)
    .select(
      tx
        .select({
          tenantId: sql<string>`${tenantId}`.as('tenant_id'),
          resourceKey: sql<string>`${resourceKey}`.as('resource_key'),
          openCount: sql<number>`count(*)::int`.as('open_count'),
          openTotal: sql<string>`coalesce(sum(${claimExpression()}), 0)`.as('open_total'),
          updatedAt: sql<Date>`now()`.as('updated_at'),
        })
        .from(proposals)
        .where(
          and(
            eq(proposals.tenantId, tenantId),
            eq(proposals.resourceKey, resourceKey),
            inArray(proposals.status, [...OPEN_STATUSES]),
          ),
        ),
    )
    .onConflictDoNothing()
    .returning(claimsColumns);
  return row ? toClaims(row) : undefined;
}

/**
 * Locks a resource's claims row, creating it when the resource has none, and answers what its open
 * proposals claim: one statement once the row exists. Intake holds it until commit, so one intake
 * at a time per resource counts open proposals against live state. Statements sent after it on the
 * same transaction run once the lock is held, each with a snapshot taken then, so reads sent
 * together with it see everything committed before the lock. Lock order: any proposal rows first,
 * then the claims row, then the audit chain head.
 */
export async function lockClaims(tx: Database, tenantId: string, resourceKey: string): Promise<OpenClaims> {
  // An upsert locks the row it returns, new or not; a new row starts empty and is then counted
  // from scratch (a resource's first proposal, or one whose row is missing for any reason).
  const [row] = await tx
    .insert(resourceClaims)
    .values({ tenantId, resourceKey, openCount: 0, openTotal: '0' })
    .onConflictDoUpdate({
      target: [resourceClaims.tenantId, resourceClaims.resourceKey],
      set: { openCount: sql`${resourceClaims.openCount}` },
    })
    .returning({ ...claimsColumns, created: sql<boolean>`xmax = 0` });
  if (!row) throw new Error('claims row missing after upsert');
  if (!row.created) return toClaims(row);
  const counted = await openClaimsFromScratch(tx, tenantId, resourceKey);
  await setClaims(tx, tenantId, resourceKey, counted);
  return counted;
}

/** What the open proposals on a resource claim, as its row holds it (no lock; nothing written). */
export async function readClaims(db: Database, tenantId: string, resourceKey: string): Promise<OpenClaims> {
  const [row] = await db.select(claimsColumns).from(resourceClaims).where(rowOf(tenantId, resourceKey));
  return row ? toClaims(row) : openClaimsFromScratch(db, tenantId, resourceKey);
}

/**
 * `open` without the claim of `proposal` (the one checked again, or the parent a revision replaces), if it holds one.
 */
export function besides(open: OpenClaims, proposal: Pick<Proposal, 'status' | 'action' | 'payload'>): OpenClaims {
  if (!isOpen(proposal.status)) return open;
  return { count: open.count - 1, total: open.total - claimOf(proposal) };
}

/**
 * What the open proposals on `resourceKey` (by default the proposal's own) claim besides this proposal, from the claims
 * row.
 */
export async function openClaimsBesides(
  db: Database,
  proposal: Claimant & Pick<Proposal, 'status'>,
  resourceKey = proposal.resourceKey,
): Promise<OpenClaims> {
  if (!resourceKey) return { count: 0, total: 0 };
  const open = await readClaims(db, proposal.tenantId, resourceKey);
  return resourceKey === proposal.resourceKey ? besides(open, proposal) : open;
}

/**
 * Keeps the claims row exact when a proposal's status moves from `from` to `to`, in the transaction
 * that writes the new status (after it): nothing when both hold a claim or neither does; otherwise
 * one UPDATE. A row that does not exist yet is created from scratch, which already counts this change.
 */
export async function adjustClaims(
  tx: Database,
  proposal: Claimant,
  from: ProposalStatus | null,
  to: ProposalStatus,
): Promise<void> {
  const delta = (isOpen(to) ? 1 : 0) - (from !== null && isOpen(from) ? 1 : 0);
  if (delta === 0 || !proposal.resourceKey) return;
  const { tenantId, resourceKey } = proposal;
  const amount = claimOf(proposal) * delta;
  const apply = () =>
    tx
      .update(resourceClaims)
      .set({
        openCount: sql`${resourceClaims.openCount} + ${delta}`,
        openTotal: sql`${resourceClaims.openTotal} + ${String(amount)}::numeric`,
        updatedAt: sql`now()`,
      })
      .where(rowOf(tenantId, resourceKey))
      .returning({ count: resourceClaims.openCount });
  if ((await apply()).length > 0) return;
  if (await createFromScratch(tx, tenantId, resourceKey)) return;
  await apply();
}

/**
 * Locks the claims rows of many proposals' resources in one order (tenant, then resource), so a
 * batch that ends many proposals never waits on a row while holding another a single change waits on.
 */
export async function lockClaimsOf(tx: Database, claimants: readonly Claimant[]): Promise<void> {
  const keys = [
    ...new Set(claimants.filter((c) => c.resourceKey).map((c) => JSON.stringify([c.tenantId, c.resourceKey]))),
  ].sort();
  for (const key of keys) {
    const [tenantId, resourceKey] = JSON.parse(key) as [string, string];
    await lockClaims(tx, tenantId, resourceKey);
  }
}

/** Sets a claims row to `claims` (reconciliation repairing drift). */
export async function setClaims(
  tx: Database,
  tenantId: string,
  resourceKey: string,
  claims: OpenClaims,
): Promise<void> {
  await tx
    .update(resourceClaims)
    .set({ openCount: claims.count, openTotal: String(claims.total), updatedAt: sql`now()` })
    .where(rowOf(tenantId, resourceKey));
}

/**
 * A proposal opening a claim on a resource whose row the transaction holds locked (intake), as a
 * CTE for the statement that inserts it: the row and the proposal change in one statement.
 */
export function openingClaim(
  tx: Database,
  claimant: Claimant & { resourceKey: string },
  action: Pick<ActionModule, 'claimField'>,
) {
  return tx.$with('opened_claim').as(
    tx
      .update(resourceClaims)
      .set({
        openCount: sql`${resourceClaims.openCount} + 1`,
        openTotal: sql`${resourceClaims.openTotal} + ${String(claimOf(claimant, action))}::numeric`,
        updatedAt: sql`now()`,
      })
      .where(rowOf(claimant.tenantId, claimant.resourceKey))
      .returning({ count: resourceClaims.openCount }),
  );
}
