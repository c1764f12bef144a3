/**
 * The oversight part of `npm run bench` (issue 27): grows the globex tenant's decision history with
 * COPY (scripts/bench/seed-history.ts) to each size in turn, spread so that the largest spans about
 * a year and each step adds older history, with first looks (proposal_views) for 9 decisions in 10;
 * at each size it times `GET /api/v1/oversight?days=7` and `?days=90` and History → Oversight over
 * HTTP as a signed-in member. The 7-day window holds the same decisions at every size, so its time
 * must not grow with the history. Globex, not acme: the pages part has grown acme's history by
 * then, and these sizes are the tenant's whole history.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '@/db/client';
import type { DemoCredentials } from '@/demo/world';
import { createUser, grantRole } from '@/lib/admin/accounts';
import {
  GROWTH_LIMIT,
  P95_LIMIT_MS,
  type PageTarget,
  proposeTemplate,
  sizeLabel,
  timeOnce,
  verifyChainOf,
} from './pages';
import { percentile } from './processes';
import { type GrowthStep, growHistory, readTemplate } from './seed-history';
import { signIn } from './session';

export const OVERSIGHT_PAGES = {
  api7: 'GET /api/v1/oversight?days=7',
  api90: 'GET /api/v1/oversight?days=90',
  page7: 'History → Oversight (/history/oversight?days=7)',
} as const;
export type OversightPageName = keyof typeof OVERSIGHT_PAGES;

/**
 * The 90-day window holds up to 90 days of decisions (about a quarter of the largest history): bounded by the window,
 * not flat.
 */
export const NINETY_DAY_P95_LIMIT_MS = 500;

const TENANT = 'globex';
/** A globex hold the demo systems of record know (demo/systems/world.ts), the template of the seeded history. */
const TEMPLATE = { sku: 'filter-green', evidence: 'ticket_message_90' };
/** Approvers added beside the demo's one, so the figures have several people to group. */
const EXTRA_APPROVERS = ['Quinn', 'Ravi'];
/** Of every 100 ended proposals seeded, 78 carry a decision (55 succeeded, 8 failed, 15 rejected). */
const DECIDED_PER_100 = 78;
const YEAR_MS = 365 * 86_400_000;

export type OversightRow = {
  size: number;
  page: OversightPageName;
  samples: number;
  p50: number;
  p95: number;
  max: number;
};
/** What the figures covered at a size, from the API's own answers. */
export type OversightWindow = { days: number; decisions: number; withFirstLook: number; approvers: number };
export type OversightStep = GrowthStep & {
  size: number;
  decisions: number;
  views: number;
  vacuumSeconds: number;
  windows: OversightWindow[];
};

export type OversightOptions = {
  databaseUrl: string;
  appUrl: string;
  /** The demo's data folder: its demo-credentials.json has the sign-ins and agent keys. */
  dataDir: string;
  /** Decisions in the tenant's history at each step; may be empty. */
  sizes: number[];
  samples: number;
  warmups: number;
  scale: number;
  progress: (text: string) => void;
};

const round = (ms: number) => Math.round(ms * 10) / 10;
const proposalsFor = (decisions: number) => Math.ceil((decisions * 100) / DECIDED_PER_100);

/** The extra approvers, members of the tenant before the template is read (its deciders). */
async function addApprovers(databaseUrl: string): Promise<void> {
  const handle = await openDatabase({ url: databaseUrl });
  try {
    for (const name of EXTRA_APPROVERS) {
      const email = `bench-${name.toLowerCase()}@${TENANT}.test`;
      await createUser(handle.db, { email, name });
      await grantRole(handle.db, { tenantId: TENANT, email, role: 'approver' });
    }
  } finally {
    await handle.close();
  }
}

/**
 * First looks for 9 in 10 of the tenant's decisions that have none: 3 s to 10 min before the
 * decision (never before the proposal), half from the queue, 3 in 10 from the page, 2 in 10 from a
 * notification; the rest stay without one (decided through the API). Deterministic per decision.
 */
async function addFirstLooks(sql: postgres.Sql): Promise<number> {
  const rows = await sql`
    insert into proposal_views (tenant_id, proposal_id, user_id, first_seen_at, channel)
    select d.tenant_id, d.proposal_id, d.user_id,
      greatest(p.created_at, d.created_at - make_interval(secs => 3 + h.dwell)),
      (case when h.n % 10 < 5 then 'queue' when h.n % 10 < 8 then 'page' else 'notification' end)::view_channel
    from decisions d
    join proposals p on p.id = d.proposal_id
    cross join lateral (select (hashtext(d.id)::bigint + 2147483648) % 1000 as n,
      (hashtext(d.id || ':dwell')::bigint + 2147483648) % 597 as dwell) h
    where d.tenant_id = ${TENANT} and h.n >= 100
    on conflict do nothing`;
  return rows.count;
}

/** The figures an answer covered: every decision counts in exactly one approver's row. */
async function windowOf(url: string, cookie: string, days: number): Promise<OversightWindow> {
  const response = await fetch(`${url}?days=${days}`, { headers: { cookie } });
  const body = (await response.json()) as { approvers?: { decisions: number; dwellMeasured: number }[] };
  if (response.status !== 200 || !body.approvers)
    throw new Error(`GET /api/v1/oversight?days=${days} answered ${response.status}`);
  const sum = (pick: (row: { decisions: number; dwellMeasured: number }) => number) =>
    body.approvers!.reduce((total, row) => total + pick(row), 0);
  return {
    days,
    decisions: sum((row) => row.decisions),
    withFirstLook: sum((row) => row.dwellMeasured),
    approvers: body.approvers.length,
  };
}

export async function measureOversight(
  options: OversightOptions,
): Promise<{ rows: OversightRow[]; seeding: OversightStep[]; targets: PageTarget[]; markdown: string }> {
  const { appUrl, progress, sizes } = options;
  if (sizes.length === 0) return { rows: [], seeding: [], targets: [], markdown: '' };
  const loadAverage = () =>
    os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' / ');
  const loadAtStart = loadAverage();
  const credentials = JSON.parse(
    fs.readFileSync(path.join(options.dataDir, 'demo-credentials.json'), 'utf8'),
  ) as DemoCredentials;
  const agent = credentials.agents.find((a) => a.tenant === TENANT && a.actions.includes('hold_stock'));
  const member = credentials.people.find((p) => p.tenant === TENANT && p.role === 'approver');
  if (!agent || !member) throw new Error(`the demo credentials have no ${TENANT} agent or approver`);

  await addApprovers(options.databaseUrl);
  const templateId = await proposeTemplate(appUrl, agent.key, TEMPLATE);
  const cookie = await signIn(appUrl, member.email, member.password);
  const api = `${appUrl}/api/v1/oversight`;
  const urls: Record<OversightPageName, string> = {
    api7: `${api}?days=7`,
    api90: `${api}?days=90`,
    page7: `${appUrl}/history/oversight?days=7`,
  };
  // The largest history spans about a year; every size has the same recent weeks.
  const spacingMs = Math.floor(YEAR_MS / proposalsFor(Math.max(...sizes)));

  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  const rows: OversightRow[] = [];
  const seeding: OversightStep[] = [];
  try {
    const template = await readTemplate(sql, templateId);
    for (const [index, size] of sizes.entries()) {
      progress(`Oversight: growing ${TENANT} to ${size.toLocaleString('en')} decisions with COPY…`);
      const [had] = await sql<{ proposals: number; decisions: number }[]>`
        select (select count(*)::int from proposals where tenant_id = ${TENANT}) as proposals,
          (select count(*)::int from decisions where tenant_id = ${TENANT}) as decisions`;
      const step = await growHistory(sql, template, {
        target: had!.proposals + proposalsFor(size - had!.decisions),
        pending: 0,
        scale: options.scale,
        spacingMs,
      });
      const views = await addFirstLooks(sql);
      const vacuumBegan = Date.now();
      await sql.unsafe('vacuum (analyze) proposals, decisions, proposal_views, commands, executions, audit_events');
      // What the checkpointer would have written by then (as the pending pages do); not allowed to every role.
      await sql.unsafe('checkpoint').catch((error: { code?: string }) => {
        if (error.code !== '42501') throw error;
      });
      const vacuumSeconds = Math.round((Date.now() - vacuumBegan) / 100) / 10;
      const [counted] = await sql<{ decisions: number; views: number }[]>`
        select (select count(*)::int from decisions where tenant_id = ${TENANT}) as decisions,
          (select count(*)::int from proposal_views where tenant_id = ${TENANT}) as views`;
      if (index === 0)
        progress(
          `  audit chain verified through #${(await verifyChainOf(options.databaseUrl, TENANT)).toLocaleString('en')}`,
        );
      const windows = [await windowOf(api, cookie, 7), await windowOf(api, cookie, 90)];
      seeding.push({ ...step, size, decisions: counted!.decisions, views: counted!.views, vacuumSeconds, windows });
      progress(
        `  +${step.proposals.toLocaleString('en')} proposals (+${views.toLocaleString('en')} first looks) in ` +
          `${step.seconds} s, vacuum analyze ${vacuumSeconds} s: ${counted!.decisions.toLocaleString('en')} ` +
          `decisions; ${windows.map((w) => `${w.decisions.toLocaleString('en')} in ${w.days} days`).join(', ')}`,
      );

      const pages = Object.keys(OVERSIGHT_PAGES) as OversightPageName[];
      const times = new Map(pages.map((page) => [page, [] as number[]]));
      // Round-robin, so a burst of load on this shared machine falls on all of them alike.
      for (let i = 0; i < options.warmups + options.samples; i++) {
        for (const page of pages) {
          const ms = await timeOnce(urls[page], cookie, false);
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
        progress(`  ${OVERSIGHT_PAGES[page]} at ${sizeLabel(size)}: p50 ${row.p50} ms, p95 ${row.p95} ms`);
      }
    }
  } finally {
    await sql.end();
  }
  const targets = oversightTargets(rows, sizes);
  const markdown = oversightMarkdown(rows, seeding, targets, {
    ...options,
    spacingMs,
    load: { start: loadAtStart, end: loadAverage() },
  });
  return { rows, seeding, targets, markdown };
}

/**
 * The 7-day figures flat: at the largest size within GROWTH_LIMIT of their p50 at the smallest, and
 * p95 within P95_LIMIT_MS at every size; the 90-day answer within NINETY_DAY_P95_LIMIT_MS.
 */
export function oversightTargets(rows: OversightRow[], sizes: number[]): PageTarget[] {
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const of = (page: OversightPageName) => rows.filter((row) => row.page === page);
  const worst = (page: OversightPageName) => of(page).reduce((top, row) => (row.p95 > top.p95 ? row : top));
  const targets: PageTarget[] = [];
  for (const page of ['api7', 'page7'] as const) {
    const small = of(page).find((row) => row.size === smallest);
    const large = of(page).find((row) => row.size === largest);
    if (!small || !large) continue;
    const ratio = large.p50 / small.p50;
    const top = worst(page);
    targets.push({
      name:
        `${OVERSIGHT_PAGES[page]} at ${sizeLabel(largest)} decisions ≤ ${GROWTH_LIMIT}× its time ` +
        `at ${sizeLabel(smallest)}, p95 ≤ ${P95_LIMIT_MS} ms at every size`,
      pass: ratio <= GROWTH_LIMIT && top.p95 <= P95_LIMIT_MS,
      measured:
        `p50 ${large.p50} ms vs ${small.p50} ms (${ratio.toFixed(2)}×), p95 at most ${top.p95} ms ` +
        `(at ${sizeLabel(top.size)})`,
    });
  }
  if (of('api90').length > 0) {
    const top = worst('api90');
    targets.push({
      name: `${OVERSIGHT_PAGES.api90} p95 ≤ ${NINETY_DAY_P95_LIMIT_MS} ms at every size`,
      pass: top.p95 <= NINETY_DAY_P95_LIMIT_MS,
      measured: `p95 at most ${top.p95} ms (at ${sizeLabel(top.size)})`,
    });
  }
  return targets;
}

function oversightMarkdown(
  rows: OversightRow[],
  seeding: OversightStep[],
  targets: PageTarget[],
  options: OversightOptions & { spacingMs: number; load: { start: string; end: string } },
): string {
  const { sizes } = options;
  const first = sizeLabel(sizes[0]!);
  const last = sizeLabel(sizes.at(-1)!);
  const header =
    `| Oversight | ${sizes.map((size) => `p50 / p95 ms at ${sizeLabel(size)} decisions`).join(' | ')} | ` +
    `${last} ÷ ${first} (p50) |`;
  const lines = [header, `| --- | ${sizes.map(() => '---:').join(' | ')} | ---: |`];
  for (const page of Object.keys(OVERSIGHT_PAGES) as OversightPageName[]) {
    const cells = sizes.map((size) => rows.find((row) => row.page === page && row.size === size));
    const start = cells[0];
    const end = cells.at(-1);
    lines.push(
      `| ${OVERSIGHT_PAGES[page]} | ` +
        `${cells.map((cell) => (cell ? `${cell.p50} / ${cell.p95}` : '–')).join(' | ')} | ` +
        `${start && end ? (end.p50 / start.p50).toFixed(2) : '–'} |`,
    );
  }
  for (const days of [7, 90]) {
    const cells = sizes.map((size) =>
      seeding.find((step) => step.size === size)?.windows.find((window) => window.days === days),
    );
    lines.push(
      `| decisions in the last ${days} days (with a first look) | ` +
        cells
          .map((cell) =>
            cell ? `${cell.decisions.toLocaleString('en')} (${cell.withFirstLook.toLocaleString('en')})` : '–',
          )
          .join(' | ') +
        ' | |',
    );
  }
  const seeded = seeding
    .map(
      (step) =>
        `${sizeLabel(step.size)}: +${step.proposals.toLocaleString('en')} proposals, ` +
        `+${step.events.toLocaleString('en')} events in ${step.seconds} s (vacuum ` +
        `analyze ${step.vacuumSeconds} s), ${step.decisions.toLocaleString('en')} decisions ` +
        `and ${step.views.toLocaleString('en')} first looks in all`,
    )
    .join('; ');
  const approvers = seeding.at(-1)?.windows[0]?.approvers ?? 0;
  return (
    `**Oversight figures.**

${lines.join('\n')}

${options.samples} sequential requests per measure and size after ${options.warmups} warm-ups, the three in turn, ` +
    `signed in as the demo's ${TENANT} approver (a member). The ${TENANT} tenant's history grown with COPY, ` +
    `older at each step, one ended proposal every ${Math.round(options.spacingMs / 1000)} s (the largest size ` +
    `spans about a year): 55% succeeded, 15% rejected, 15% expired, 7% stale, 8% failed, decided by ` +
    `${approvers} approvers, with their commands, executions and audit events continuing the tenant's chain ` +
    `(verified after the first step); a first look for 9 decisions in 10 (half from the queue, 3 in 10 from ` +
    `the page, 2 in 10 from a notification, 3 s to 10 min before the decision). Seeding: ${seeded}. Load ` +
    `average (1/5/15 min) ${options.load.start} at the start, ${options.load.end} at the end.

${targets.map((target) => `- ${target.pass ? 'PASS' : 'MISS'} ${target.name}: ${target.measured}`).join('\n')}
`
  );
}
