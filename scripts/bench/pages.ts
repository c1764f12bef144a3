/**
 * The pages part of `npm run bench` (issue 14): grows the acme tenant's history with COPY to each
 * size in turn (scripts/bench/seed-history.ts) and, at each size, times the pages an operator
 * opens over real HTTP with a demo approver's session — sequential requests after warm-ups, whole
 * response read — and the audit export's first byte. Then the same tenant's pending proposals at
 * each pending size (scripts/bench/pending-pages.ts, issue 23). Measured last: seeding changes the
 * database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openDatabase } from '@/db/client';
import { scaledIds } from '@/demo/systems/world';
import type { DemoCredentials } from '@/demo/world';
import { verifyStoredChains } from '@/lib/audit/verify-database';
import { createSystemsClient } from '@/lib/systems/client';
import {
  measurePendingPages,
  type PendingRow,
  type PendingSizeStep,
  pendingMarkdown,
  pendingTargets,
  type SweepRow,
} from './pending-pages';
import { type GrowthStep, growHistory, readTemplate } from './seed-history';
import { signIn } from './session';

export const PAGES = {
  queue: 'Queue (/)',
  proposal: 'Proposal (/proposals/<id>)',
  proposals: 'Proposals list (/proposals)',
  decisions: 'History, Decisions (/history)',
  events: 'History, Events (/history?tab=events)',
  export: 'Export, first byte (/api/v1/audit/events?format=jsonl)',
} as const;
export type PageName = keyof typeof PAGES;

export type PageRow = { size: number; page: PageName; samples: number; p50: number; p95: number; max: number };
export type SizeStep = GrowthStep & { size: number; vacuumSeconds: number };
export type PageTarget = { name: string; pass: boolean; measured: string };

export type PagesOptions = {
  databaseUrl: string;
  appUrl: string;
  /** The demo's data folder: its demo-credentials.json has the sign-ins and agent keys. */
  dataDir: string;
  /** History sizes (proposals, mostly ended); may be empty. */
  sizes: number[];
  /** Pending sizes, measured after the history (issue 23); may be empty. */
  pendingSizes: number[];
  /** Re-check sweep runs per measure at each pending size; 0 leaves the sweep out. */
  sweepRounds: number;
  samples: number;
  warmups: number;
  /** DEMO_SCALE: seeded proposals spread over the scaled SKUs. */
  scale: number;
  progress: (text: string) => void;
};

/** At the largest size, each page within this factor of its p50 at the smallest… */
export const GROWTH_LIMIT = 1.3;
/** …and its p95 within this. */
export const P95_LIMIT_MS = 150;
/** Proposals waiting at any size: the queue holds what awaits a decision, not the history. */
const PENDING = 1_000;

const round = (ms: number) => Math.round(ms * 10) / 10;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

export const sizeLabel = (n: number) =>
  n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1_000 ? `${n / 1_000}k` : String(n);

/** One request's server time on loopback: to the last byte of a page, or to the first byte of the export. */
export async function timeOnce(url: string, cookie: string, firstByteOnly: boolean): Promise<number> {
  const abort = new AbortController();
  const began = performance.now();
  const response = await fetch(url, { headers: { cookie }, redirect: 'manual', signal: abort.signal }).catch(
    (error: unknown) => {
      // undici's "fetch failed" hides the reason (ECONNREFUSED when the server went away): name it.
      const code = (error as { cause?: { code?: string } }).cause?.code ?? 'unknown';
      throw new Error(`${new URL(url).pathname} could not be fetched (${code})`);
    },
  );
  if (response.status !== 200) {
    await response.arrayBuffer().catch(() => undefined);
    throw new Error(`${new URL(url).pathname} answered ${response.status}`);
  }
  if (firstByteOnly) {
    const reader = response.body!.getReader();
    const first = await reader.read();
    const elapsed = performance.now() - began;
    if (first.done || first.value.length === 0) throw new Error('the export sent no bytes');
    abort.abort();
    await reader.cancel().catch(() => undefined);
    return elapsed;
  }
  await response.arrayBuffer();
  return performance.now() - began;
}

/**
 * The tenant's whole chain through the product's own verifier, after the first (smallest) step:
 * proof the seeded events chain on from the real ones and move the head with them.
 */
export async function verifyChainOf(databaseUrl: string, tenant: string): Promise<number> {
  const handle = await openDatabase({ url: databaseUrl });
  try {
    const [report] = await verifyStoredChains(handle.db, { tenant });
    if (!report?.ok)
      throw new Error(
        `the seeded audit chain of ${tenant} does not verify${report ? ` (#${report.seq}, ${report.reason})` : ''}`,
      );
    return report.through.seq;
  } finally {
    await handle.close();
  }
}

/**
 * The real proposal the seeded ones are cloned from, made through the intake like any other: a hold of one `sku` with
 * `evidence`.
 */
export async function proposeTemplate(
  appUrl: string,
  key: string,
  ids: { sku: string; evidence: string },
): Promise<string> {
  const requestId = `bench-pages-template-${Date.now()}`;
  const response = await fetch(`${appUrl}/api/v1/proposals`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      requestId,
      contractVersion: 1,
      action: 'hold_stock',
      args: { sku: ids.sku, quantity: 1 },
      evidenceRefs: [ids.evidence],
    }),
  });
  const body = (await response.json()) as { proposal?: { id?: string }; error?: { code?: string } };
  if (response.status !== 201 || !body.proposal?.id)
    throw new Error(`the template proposal was refused (${response.status} ${body.error?.code ?? ''})`);
  return body.proposal.id;
}

export type PendingResult = { rows: PendingRow[]; seeding: PendingSizeStep[]; sweep: SweepRow[] };

export async function measurePages(options: PagesOptions): Promise<{
  rows: PageRow[];
  seeding: SizeStep[];
  pending: PendingResult | undefined;
  targets: PageTarget[];
  markdown: string;
}> {
  const { appUrl, progress } = options;
  const loadAverage = () =>
    os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' / ');
  const loadAtStart = loadAverage();
  const credentials = JSON.parse(
    fs.readFileSync(path.join(options.dataDir, 'demo-credentials.json'), 'utf8'),
  ) as DemoCredentials;
  const agent = credentials.agents.find((a) => a.tenant === 'acme' && a.actions.includes('hold_stock'));
  const operator = credentials.people.find((p) => p.tenant === 'acme' && p.role === 'approver');
  const admin = credentials.people.find((p) => p.tenant === 'acme' && p.role === 'admin');
  if (!agent || !operator || !admin) throw new Error('the demo credentials have no acme agent, approver or admin');

  const templateId = await proposeTemplate(appUrl, agent.key, scaledIds(options.scale));
  const cookie = await signIn(appUrl, operator.email, operator.password);
  const urls: Record<PageName, string> = {
    queue: `${appUrl}/`,
    proposal: `${appUrl}/proposals/${templateId}`,
    proposals: `${appUrl}/proposals`,
    decisions: `${appUrl}/history`,
    events: `${appUrl}/history?tab=events`,
    export: `${appUrl}/api/v1/audit/events?format=jsonl`,
  };

  const sql = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  const rows: PageRow[] = [];
  const seeding: SizeStep[] = [];
  let pendingResult: PendingResult | undefined;
  let loadAfterHistory = loadAtStart;
  try {
    const template = await readTemplate(sql, templateId);
    for (const [index, size] of options.sizes.entries()) {
      progress(`Pages: growing acme to ${size.toLocaleString('en')} proposals with COPY…`);
      const pending = index === 0 ? Math.min(PENDING, Math.floor(size / 10)) : 0;
      const step = await growHistory(sql, template, { target: size, pending, scale: options.scale });
      const vacuumBegan = Date.now();
      // What autovacuum would have done by then; measuring while it runs would time the vacuum.
      await sql.unsafe('vacuum (analyze) proposals, decisions, commands, executions, audit_events');
      const vacuumSeconds = Math.round((Date.now() - vacuumBegan) / 100) / 10;
      seeding.push({ ...step, size, vacuumSeconds });
      progress(
        `  ${step.proposals.toLocaleString('en')} proposals and ${step.events.toLocaleString('en')} events ` +
          `in ${step.seconds} s, vacuum analyze ${vacuumSeconds} s`,
      );
      if (index === 0)
        progress(
          `  audit chain verified through ` +
            `#${(await verifyChainOf(options.databaseUrl, template.tenantId)).toLocaleString('en')}`,
        );
      for (const page of Object.keys(PAGES) as PageName[]) {
        const firstByte = page === 'export';
        for (let i = 0; i < options.warmups; i++) await timeOnce(urls[page], cookie, firstByte);
        const times: number[] = [];
        for (let i = 0; i < options.samples; i++) times.push(await timeOnce(urls[page], cookie, firstByte));
        times.sort((a, b) => a - b);
        const row = {
          size,
          page,
          samples: times.length,
          p50: round(percentile(times, 50)),
          p95: round(percentile(times, 95)),
          max: round(times.at(-1)!),
        };
        rows.push(row);
        progress(`  ${PAGES[page]} at ${sizeLabel(size)}: p50 ${row.p50} ms, p95 ${row.p95} ms`);
      }
    }
    loadAfterHistory = loadAverage();
    if (options.pendingSizes.length > 0) {
      const admins = await signIn(appUrl, admin.email, admin.password);
      pendingResult = await measurePendingPages({
        sql,
        databaseUrl: options.databaseUrl,
        appUrl,
        template,
        templateId,
        cookies: { approver: cookie, admin: admins },
        sizes: options.pendingSizes,
        samples: options.samples,
        warmups: options.warmups,
        scale: options.scale,
        systems: demoSystemsClient(options.dataDir, credentials),
        sweepRounds: options.sweepRounds,
        time: (url, session) => timeOnce(url, session, false),
        verifyChain: () => verifyChainOf(options.databaseUrl, template.tenantId),
        progress,
      });
    }
  } finally {
    await sql.end();
  }
  const targets = pageTargets(rows, options.sizes);
  const history =
    options.sizes.length > 0
      ? pagesMarkdown(rows, seeding, targets, options, { start: loadAtStart, end: loadAfterHistory })
      : '';
  const pendingTargetList = pendingResult
    ? pendingTargets(pendingResult.rows, pendingResult.sweep, options.pendingSizes)
    : [];
  const pendingSection = pendingResult
    ? pendingMarkdown(pendingResult, pendingTargetList, {
        sizes: options.pendingSizes,
        samples: options.samples,
        warmups: options.warmups,
        rounds: options.sweepRounds,
        load: { start: loadAfterHistory, end: loadAverage() },
      })
    : '';
  return {
    rows,
    seeding,
    pending: pendingResult,
    targets: [...targets, ...pendingTargetList],
    markdown: [history, pendingSection].filter(Boolean).join('\n'),
  };
}

/**
 * The demo's systems of record as the demo's server reads them (its URL and scope credentials from the data folder).
 */
function demoSystemsClient(dataDir: string, credentials: DemoCredentials) {
  const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8')) as {
    scopeCredentials: Record<string, string>;
  };
  return createSystemsClient({ baseUrl: credentials.systemsOfRecordUrl, credentials: secrets.scopeCredentials });
}

function pageTargets(rows: PageRow[], sizes: number[]): PageTarget[] {
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const at = (page: PageName, size: number) => rows.find((row) => row.page === page && row.size === size);
  return (Object.keys(PAGES) as PageName[]).flatMap((page) => {
    const small = at(page, smallest);
    const large = at(page, largest);
    if (!small || !large) return [];
    const ratio = large.p50 / small.p50;
    return [
      {
        name:
          `${PAGES[page]} at ${sizeLabel(largest)} ≤ ${GROWTH_LIMIT}× its time at ${sizeLabel(smallest)}, p95 ` +
          `≤ ${P95_LIMIT_MS} ms`,
        pass: ratio <= GROWTH_LIMIT && large.p95 <= P95_LIMIT_MS,
        measured: `p50 ${large.p50} ms vs ${small.p50} ms (${ratio.toFixed(2)}×), p95 ${large.p95} ms`,
      },
    ];
  });
}

function pagesMarkdown(
  rows: PageRow[],
  seeding: SizeStep[],
  targets: PageTarget[],
  options: PagesOptions,
  load: { start: string; end: string },
): string {
  const sizes = options.sizes;
  const smallest = Math.min(...sizes);
  const largest = Math.max(...sizes);
  const header =
    `| Page | ${sizes.map((size) => `p50 / p95 ms at ${sizeLabel(size)}`).join(' | ')} | ${sizeLabel(largest)} ` +
    `÷ ${sizeLabel(smallest)} (p50) |`;
  const lines = [header, `| --- | ${sizes.map(() => '---:').join(' | ')} | ---: |`];
  for (const page of Object.keys(PAGES) as PageName[]) {
    const cells = sizes.map((size) => rows.find((row) => row.page === page && row.size === size));
    const first = cells[0];
    const last = cells.at(-1);
    const ratio = first && last ? (last.p50 / first.p50).toFixed(2) : '–';
    lines.push(
      `| ${PAGES[page]} | ${cells.map((cell) => (cell ? `${cell.p50} / ${cell.p95}` : '–')).join(' | ')} | ${ratio} |`,
    );
  }
  const seeded = seeding
    .map(
      (step) =>
        `${sizeLabel(step.size)}: +${step.proposals.toLocaleString('en')} proposals, ` +
        `+${step.events.toLocaleString('en')} events in ${step.seconds} s (vacuum ` +
        `analyze ${step.vacuumSeconds} s)`,
    )
    .join('; ');
  return (
    `${lines.join('\n')}

${options.samples} sequential requests per page and size after ${options.warmups} warm-ups, signed in as a demo ` +
    `approver; pages read to the last byte, the export to its first. The acme tenant grown with COPY (` +
    `${PENDING.toLocaleString('en')} pending at most, the rest ended: 55% succeeded, 15% rejected, 15% ` +
    `expired, 7% stale, 8% failed, with their decisions, commands, executions and audit events continuing the ` +
    `tenant's hash chain, verified after the first step). Seeding: ${seeded}. Load average (1/5/15 min) ` +
    `${load.start} at the start of the pages, ${load.end} at the end.

${targets.map((target) => `- ${target.pass ? 'PASS' : 'MISS'} ${target.name}: ${target.measured}`).join('\n')}
`
  );
}
