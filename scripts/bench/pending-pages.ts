/**
 * The pages at pending scale (issue 23), after the history part of scripts/bench/pages.ts: acme's
 * pending proposals grown with COPY to each size in turn (over the scaled SKUs, one in 20 routed to
 * an admin; from the second size on, 10,000 more on one hot SKU), with exact claims rows, and at
 * each size the queue in every group, the Proposals list, a proposal page (one on the hot SKU too)
 * timed over HTTP, and the re-check sweep (scripts/bench/sweep.ts).
 */
import type postgres from 'postgres';
import { openDatabase } from '@/db/client';
import { scaledIds } from '@/demo/systems/world';
import { claimsDrift } from '@/lib/jobs/reconcile-claims';
import type { SystemsClient } from '@/lib/systems/client';
import { growPending, type PendingStep, type SeedTemplate } from './seed-history';
import { measureSweep, type SweepMeasure } from './sweep';

export const PENDING_PAGES = {
  needsYou: 'Queue, Needs you (/)',
  waiting: 'Queue, Waiting on others (/?group=waiting)',
  all: 'Queue, Everything (/?group=all)',
  emptyGroup: 'Queue, Waiting on others as an admin: an empty group',
  proposals: 'Proposals list (/proposals)',
  proposal: 'Proposal (/proposals/<id>)',
  hotProposal: 'Proposal on the hot SKU (/proposals/<id>)',
} as const;
export type PendingPageName = keyof typeof PENDING_PAGES;

/** Pending proposals on the one hot SKU from the second size on (no more than the size itself). */
export const HOT_PENDING = 10_000;
/** The hot SKU: the first scaled one (`sku-000001`). */
const HOT_RESOURCE = 1;

export type PendingRow = {
  size: number;
  page: PendingPageName;
  samples: number;
  p50: number;
  p95: number;
  max: number;
};
export type PendingSizeStep = PendingStep & { size: number; totalPending: number; vacuumSeconds: number };
export type SweepRow = SweepMeasure & { size: number; totalPending: number; idlePerPendingUs: number };

type Timer = (url: string, cookie: string) => Promise<number>;

export type PendingOptions = {
  sql: postgres.Sql;
  databaseUrl: string;
  appUrl: string;
  template: SeedTemplate;
  templateId: string;
  /** Sessions of an approver (the queue as most see it) and an admin (for whom nothing waits on others). */
  cookies: { approver: string; admin: string };
  sizes: number[];
  samples: number;
  warmups: number;
  scale: number;
  systems: SystemsClient;
  /** Sweep runs per measure; 0 leaves the sweep out. */
  sweepRounds: number;
  time: Timer;
  /** Verifies the tenant's audit chain (after the first size: the seeded events chain on); answers the last seq. */
  verifyChain: () => Promise<number>;
  progress: (text: string) => void;
};

const round = (ms: number) => Math.round(ms * 10) / 10;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

/** One pending proposal on the hot SKU, from the middle of the queue's order, with its payload hash. */
async function hotProposal(
  sql: postgres.Sql,
  tenantId: string,
  hotKey: string,
): Promise<{ id: string; payloadHash: string } | undefined> {
  const [row] = await sql<{ id: string; payload_hash: string }[]>`
    select id, payload_hash from proposals
    where tenant_id = ${tenantId} and resource_key = ${hotKey} and status = 'pending_approval'
    order by expires_at, id
    offset (select count(*) / 2 from proposals
      where tenant_id = ${tenantId} and resource_key = ${hotKey} and status = 'pending_approval') limit 1`;
  return row && { id: row.id, payloadHash: row.payload_hash };
}

/** Rejects a proposal through the API as the approver: a sibling on the hot SKU ends, as in real use. */
async function reject(appUrl: string, cookie: string, proposal: { id: string; payloadHash: string }): Promise<void> {
  const response = await fetch(`${appUrl}/api/v1/proposals/${encodeURIComponent(proposal.id)}/decisions`, {
    method: 'POST',
    headers: { cookie, origin: new URL(appUrl).origin, 'content-type': 'application/json' },
    body: JSON.stringify({
      decision: 'reject',
      payloadHash: proposal.payloadHash,
      reason: 'Bench: a sibling on the hot SKU ends.',
    }),
  });
  await response.arrayBuffer();
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`rejecting a hot proposal was answered ${response.status}`);
}

export async function measurePendingPages(
  options: PendingOptions,
): Promise<{ rows: PendingRow[]; seeding: PendingSizeStep[]; sweep: SweepRow[] }> {
  const { sql, template, progress } = options;
  const tenantId = template.tenantId;
  const hotKey = `sku:${scaledIds(HOT_RESOURCE).sku}`;
  const rows: PendingRow[] = [];
  const seeding: PendingSizeStep[] = [];
  const sweep: SweepRow[] = [];
  const handle = await openDatabase({ url: options.databaseUrl });
  try {
    for (const [index, size] of options.sizes.entries()) {
      const hot = index === 0 ? 0 : Math.min(HOT_PENDING, size);
      progress(
        `Pending: growing acme to ${size.toLocaleString('en')} pending over many ` +
          `SKUs${hot ? ` and ${hot.toLocaleString('en')} on ${hotKey}` : ''} with COPY…`,
      );
      const step = await growPending(sql, template, {
        target: size,
        hot: { resource: HOT_RESOURCE, count: hot },
        scale: options.scale,
      });
      const vacuumBegan = Date.now();
      await sql.unsafe('vacuum (analyze) proposals, resource_claims, audit_events');
      // What the checkpointer would have written by then: measuring while it flushes the COPY would time the flush.
      await sql.unsafe('checkpoint').catch((error: { code?: string }) => {
        if (error.code !== '42501') throw error;
      });
      const vacuumSeconds = Math.round((Date.now() - vacuumBegan) / 100) / 10;
      const drift = (await claimsDrift(handle.db)).filter((row) => row.tenantId === tenantId);
      if (drift.length > 0)
        throw new Error(`${drift.length} claims rows of ${tenantId} differ from the sum from scratch after seeding`);
      const [counted] = await sql<
        { n: number }[]
      >`select count(*)::int as n from proposals where tenant_id = ${tenantId} and status = 'pending_approval'`;
      const totalPending = counted?.n ?? 0;
      seeding.push({ ...step, size, totalPending, vacuumSeconds });
      progress(
        `  +${step.pending.toLocaleString('en')} pending, +${step.hot.toLocaleString('en')} on the hot SKU ` +
          `(${totalPending.toLocaleString('en')} pending in all) in ${step.seconds} s, vacuum ` +
          `analyze ${vacuumSeconds} s; ${step.claimsRows.toLocaleString('en')} claims rows, all exact`,
      );
      if (index === 0)
        progress(`  audit chain verified through #${(await options.verifyChain()).toLocaleString('en')}`);

      const onHot = hot > 0 ? await hotProposal(sql, tenantId, hotKey) : undefined;
      const urls: Partial<Record<PendingPageName, [string, string]>> = {
        needsYou: [`${options.appUrl}/`, options.cookies.approver],
        waiting: [`${options.appUrl}/?group=waiting`, options.cookies.approver],
        all: [`${options.appUrl}/?group=all`, options.cookies.approver],
        emptyGroup: [`${options.appUrl}/?group=waiting`, options.cookies.admin],
        proposals: [`${options.appUrl}/proposals`, options.cookies.approver],
        proposal: [`${options.appUrl}/proposals/${options.templateId}`, options.cookies.approver],
        ...(onHot
          ? { hotProposal: [`${options.appUrl}/proposals/${onHot.id}`, options.cookies.approver] as [string, string] }
          : {}),
      };
      const pages = (Object.keys(PENDING_PAGES) as PendingPageName[]).filter((page) => urls[page]);
      const times = new Map(pages.map((page) => [page, [] as number[]]));
      // Round-robin over the pages, so a burst of load on this shared machine falls on all of them alike.
      for (let i = 0; i < options.warmups + options.samples; i++) {
        for (const page of pages) {
          const ms = await options.time(...urls[page]!);
          if (i >= options.warmups) times.get(page)!.push(ms);
        }
      }
      for (const page of pages) {
        const sorted = times.get(page)!.sort((a, b) => a - b);
        const row = {
          size,
          page,
          samples: sorted.length,
          p50: round(percentile(sorted, 50)),
          p95: round(percentile(sorted, 95)),
          max: round(sorted.at(-1)!),
        };
        rows.push(row);
        progress(
          `  ${PENDING_PAGES[page]} at ${size.toLocaleString('en')} pending: p50 ${row.p50} ms, p95 ${row.p95} ms`,
        );
      }

      if (options.sweepRounds > 0) {
        const sibling = onHot && (await hotProposal(sql, tenantId, hotKey));
        const hotRuns = sibling && {
          endSibling: () => reject(options.appUrl, options.cookies.approver, sibling),
          settle: async () => {
            await sql`update proposals set updated_at = now()
              where tenant_id = ${tenantId} and resource_key = ${hotKey} and status = 'pending_approval'`;
          },
        };
        const measured = await measureSweep(handle.db, options.systems, {
          rounds: options.sweepRounds,
          ...(hotRuns ? { hot: hotRuns } : {}),
        });
        const row: SweepRow = {
          ...measured,
          size,
          totalPending,
          idlePerPendingUs: (measured.idleMs * 1000) / totalPending,
        };
        sweep.push(row);
        progress(
          `  Re-check sweep: ${row.drained} due re-checked first; ${round(row.idleMs)} ms with nothing due ` +
            `(${row.idlePerPendingUs.toFixed(2)} µs per pending, ${row.idleChecked} re-checked ` +
            `meanwhile), ${row.perCheckMs.toFixed(2)} ms per ` +
            `re-check${row.hot ? `, ${row.hot.perCheckMs.toFixed(2)} ms per re-check on the hot SKU` : ''}`,
        );
      }
    }
  } finally {
    await handle.close();
  }
  return { rows, seeding, sweep };
}

export type PendingTarget = { name: string; pass: boolean; measured: string };

const GROWTH_LIMIT = 1.3;
const P95_LIMIT_MS = 150;
const label = (n: number) => (n >= 1_000 ? `${n / 1_000}k` : String(n));

/**
 * Each page at the largest size within GROWTH_LIMIT of its p50 at the smallest (the page on the hot
 * SKU, which the smallest size has none of, against the ordinary proposal page there) and p95 within
 * P95_LIMIT_MS; the sweep's cost per pending proposal (with nothing due) and per re-check flat.
 */
export function pendingTargets(rows: PendingRow[], sweep: SweepRow[], sizes: number[]): PendingTarget[] {
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const at = (page: PendingPageName, size: number) => rows.find((row) => row.page === page && row.size === size);
  const targets: PendingTarget[] = [];
  for (const page of Object.keys(PENDING_PAGES) as PendingPageName[]) {
    const reference = page === 'hotProposal' ? 'proposal' : page;
    const small = at(reference, smallest);
    const large = at(page, largest);
    if (!small || !large || smallest === largest) continue;
    const ratio = large.p50 / small.p50;
    targets.push({
      name:
        `${PENDING_PAGES[page]} at ${label(largest)} pending ` +
        `≤ ${GROWTH_LIMIT}× ${reference === page ? 'its' : 'the proposal page’s'} time at ${label(smallest)}, ` +
        `p95 ≤ ${P95_LIMIT_MS} ms`,
      pass: ratio <= GROWTH_LIMIT && large.p95 <= P95_LIMIT_MS,
      measured: `p50 ${large.p50} ms vs ${small.p50} ms (${ratio.toFixed(2)}×), p95 ${large.p95} ms`,
    });
  }
  const first = sweep.find((row) => row.size === smallest);
  const last = sweep.find((row) => row.size === largest);
  if (first && last && smallest !== largest) {
    const idle = last.idlePerPendingUs / first.idlePerPendingUs;
    targets.push({
      name:
        `re-check sweep with nothing due: cost per pending proposal at ${label(largest)} ≤ ${GROWTH_LIMIT}× ` +
        `at ${label(smallest)}`,
      pass: idle <= GROWTH_LIMIT,
      measured:
        `${last.idlePerPendingUs.toFixed(2)} µs vs ${first.idlePerPendingUs.toFixed(2)} µs per pending ` +
        `(${idle.toFixed(2)}×; one run ${round(last.idleMs)} ms vs ${round(first.idleMs)} ms)`,
    });
    const check = last.perCheckMs / first.perCheckMs;
    targets.push({
      name:
        `re-check sweep: time per proposal re-checked at ${label(largest)} ≤ ${GROWTH_LIMIT}× ` +
        `at ${label(smallest)}`,
      pass: check <= GROWTH_LIMIT,
      measured: `${last.perCheckMs.toFixed(2)} ms vs ${first.perCheckMs.toFixed(2)} ms (${check.toFixed(2)}×)`,
    });
    if (last.hot) {
      const hot = last.hot.perCheckMs / first.perCheckMs;
      targets.push({
        name:
          `re-check sweep on the hot SKU (${HOT_PENDING.toLocaleString('en')} pending on it) ` +
          `at ${label(largest)}: time per re-check ≤ ${GROWTH_LIMIT}× a re-check at ${label(smallest)}`,
        pass: hot <= GROWTH_LIMIT,
        measured: `${last.hot.perCheckMs.toFixed(2)} ms vs ${first.perCheckMs.toFixed(2)} ms (${hot.toFixed(2)}×)`,
      });
    }
  }
  return targets;
}

export function pendingMarkdown(
  result: { rows: PendingRow[]; seeding: PendingSizeStep[]; sweep: SweepRow[] },
  targets: PendingTarget[],
  options: { sizes: number[]; samples: number; warmups: number; rounds: number; load: { start: string; end: string } },
): string {
  const { rows, seeding, sweep } = result;
  const sizes = options.sizes;
  const first = sizes[0]!;
  const last = sizes.at(-1)!;
  const total = (size: number) => seeding.find((step) => step.size === size)?.totalPending;
  const columns = sizes.map(
    (size) => `p50 / p95 ms at ${label(size)} (${(total(size) ?? size).toLocaleString('en')} pending)`,
  );
  const header = `| Page | ${columns.join(' | ')} | ${label(last)} ÷ ${label(first)} (p50) |`;
  const lines = [header, `| --- | ${sizes.map(() => '---:').join(' | ')} | ---: |`];
  for (const page of Object.keys(PENDING_PAGES) as PendingPageName[]) {
    const cells = sizes.map((size) => rows.find((row) => row.page === page && row.size === size));
    const reference = rows.find(
      (row) => row.page === (page === 'hotProposal' ? 'proposal' : page) && row.size === first,
    );
    const end = cells.at(-1);
    lines.push(
      `| ${PENDING_PAGES[page]} | ${cells.map((cell) => (cell ? `${cell.p50} / ${cell.p95}` : '–')).join(' | ')} ` +
        `| ${reference && end ? (end.p50 / reference.p50).toFixed(2) : '–'} |`,
    );
  }
  // One figure of the sweep per size, '–' where that size has none.
  const acrossSizes = (figure: (row: (typeof sweep)[number] | undefined) => string | undefined) =>
    sizes.map((size) => figure(sweep.find((r) => r.size === size)) ?? '–').join(' | ');
  const sweepLines = sweep.length
    ? [
        '',
        `| Re-check sweep | ${sizes.map((size) => label(size)).join(' | ')} |`,
        `| --- | ${sizes.map(() => '---:').join(' | ')} |`,
        `| due at the start, re-checked first ` +
          `| ${sizes.map((size) => sweep.find((r) => r.size === size)?.drained ?? '–').join(' | ')} |`,
        `| one run, nothing due (ms) | ${sizes
          .map((size) => {
            const row = sweep.find((r) => r.size === size);
            return row ? round(row.idleMs) : '–';
          })
          .join(' | ')} |`,
        `| … per pending proposal (µs) | ${acrossSizes((row) => row?.idlePerPendingUs.toFixed(2))} |`,
        `| per proposal re-checked, many SKUs (ms) | ${acrossSizes((row) => row?.perCheckMs.toFixed(2))} |`,
        `| per proposal re-checked on the hot SKU (ms) | ${acrossSizes((row) => row?.hot?.perCheckMs.toFixed(2))} |`,
      ]
    : [];
  const seeded = seeding
    .map(
      (step) =>
        `${label(step.size)}: +${step.pending.toLocaleString('en')} pending and ` +
        `+${step.hot.toLocaleString('en')} on the hot SKU in ${step.seconds} s (vacuum ` +
        `analyze ${step.vacuumSeconds} s, ${step.claimsRows.toLocaleString('en')} claims rows)`,
    )
    .join('; ');
  return (
    `**Pages at pending scale.**

${lines.join('\n')}
${sweepLines.join('\n')}

${options.samples} sequential requests per page and size after ${options.warmups} warm-ups, the pages in turn, as a ` +
    `demo approver (the empty group as a demo admin, for whom nothing waits on others). Pending proposals over ` +
    `the scaled SKUs, one in 20 routed to an admin (so "Waiting on others" holds about 5% for the approver); ` +
    `from the second size on, ${HOT_PENDING.toLocaleString('en')} more on one hot SKU (${'`sku-000001`'}); ` +
    `claims rows set from scratch and checked exact at each size, then vacuum analyze and a checkpoint. The ` +
    `sweep runs in the bench process, as the worker does (50 per tenant per run): what is due is re-checked ` +
    `first; then ${options.rounds} runs with nothing due (the scan every run pays; p50), ${options.rounds} ` +
    `with everything due, and (from the second size) ${options.rounds} after a sibling on the hot SKU was ` +
    `rejected, the rest there then marked checked. Seeding: ${seeded}. Load average (1/5/15 min) ` +
    `${options.load.start} at the start, ${options.load.end} at the end.

${targets.map((target) => `- ${target.pass ? 'PASS' : 'MISS'} ${target.name}: ${target.measured}`).join('\n')}
`
  );
}
