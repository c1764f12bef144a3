import type { Database } from '@/db';
import { authenticateAgent } from '@/lib/agents/authenticate';
import { Refusal } from '@/lib/errors/refusal';
import { readProposalBody } from '@/lib/http/proposal-body';
import { submitProposal } from '@/lib/intake/intake';
import { type BaselineVerdict, baselineValidate } from './baseline';
import { type CorpusSuite, DEFAULT_CORPUS_DIR, type Expectation, type LoadedCase, loadCorpus } from './format';
import { agentRequest, type CorpusWorld, openCorpusWorld, type Tenant } from './world';

/** What the real path (envelope limits, then the gates) did with one request. */
export type GateVerdict =
  | { outcome: 'accepted'; status: 200 | 201; proposalId: string }
  | {
      outcome: 'rejected';
      status: number;
      kind: string;
      code: string;
      issues: { field: string; code: string }[];
      error: Refusal;
    }
  /** Anything but a Refusal escaped: the route would answer 500. Always a mismatch. */
  | { outcome: 'crashed'; message: string };

export type CaseResult = { case: LoadedCase; gates: GateVerdict; baseline: BaselineVerdict; mismatch?: string };
export type SuiteResult = { suite: CorpusSuite; results: CaseResult[]; settled: number };
export type CorpusRun = { suites: SuiteResult[]; durationMs: number };

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const first = error.message.split('\n')[0]!.slice(0, 160);
  return cause instanceof Error
    ? `${error.name}: ${first} (cause: ${cause.message.slice(0, 160)})`
    : `${error.name}: ${first}`;
}

function rejected(error: Refusal): GateVerdict {
  const issues = Array.isArray(error.details.issues)
    ? (error.details.issues as { field: string; code: string }[]).map(({ field, code }) => ({ field, code }))
    : [];
  return { outcome: 'rejected', status: error.status, kind: error.kind, code: error.code, issues, error };
}

/**
 * One request through the real path, as POST /api/v1/proposals runs it (without the rate limit):
 * a real Request, the agent authenticated from its bearer key, the envelope limits of
 * readJsonBody (a refusal there is recorded as an intake attempt, like the route does), then
 * submitProposal with the demo systems of record.
 */
export async function sendToGates(
  world: CorpusWorld,
  key: string,
  body: Uint8Array | string,
  contentType = 'application/json',
): Promise<GateVerdict> {
  const startedAt = performance.now();
  const request = agentRequest(key, typeof body === 'string' ? body : new Uint8Array(body), contentType);
  try {
    const agent = await authenticateAgent(world.db, request);
    if (!agent) throw new Error('the agent key did not authenticate');
    const outcome = await submitProposal(
      world.db,
      agent,
      await readProposalBody(world.db, agent, request, startedAt),
      world.systems.client,
    );
    return { outcome: 'accepted', status: outcome.created ? 201 : 200, proposalId: outcome.proposal.id };
  } catch (error) {
    if (error instanceof Refusal) return rejected(error);
    return { outcome: 'crashed', message: describeError(error) };
  }
}

export function describeVerdict(verdict: GateVerdict): string {
  switch (verdict.outcome) {
    case 'accepted':
      return `accepted (${verdict.status})`;
    case 'crashed':
      return `an unhandled error (${verdict.message})`;
    default: {
      const fields = verdict.issues.map((issue) => `${issue.field}:${issue.code}`).join(', ');
      return `${verdict.status} ${verdict.kind} ${verdict.code}${fields ? ` [${fields}]` : ''}`;
    }
  }
}

function describeExpectation(expect: Expectation): string {
  if (expect.outcome === 'accepted') return expect.replay ? 'accepted (200, a replay)' : 'accepted (201)';
  const fields = expect.field
    ? ` [${expect.field}${expect.issue ? `:${expect.issue}` : ''}]`
    : expect.fields
      ? ` [${expect.fields.join(', ')}]`
      : '';
  return `${expect.status} ${expect.kind} ${expect.code}${fields}`;
}

/** Undefined when the gates did what the case expects, else what differed, in words. */
export function checkExpectation(expect: Expectation, verdict: GateVerdict): string | undefined {
  const differs = () => `expected ${describeExpectation(expect)}, got ${describeVerdict(verdict)}`;
  if (verdict.outcome === 'crashed') return differs();
  if (expect.outcome === 'accepted') {
    if (verdict.outcome !== 'accepted') return differs();
    return verdict.status === (expect.replay ? 200 : 201) ? undefined : differs();
  }
  if (verdict.outcome !== 'rejected') return differs();
  if (verdict.status !== expect.status || verdict.kind !== expect.kind || verdict.code !== expect.code)
    return differs();
  const named = [...new Set(verdict.issues.map((issue) => issue.field))].sort();
  const wanted =
    expect.field !== undefined ? [expect.field] : expect.fields ? [...new Set(expect.fields)].sort() : undefined;
  if (wanted && JSON.stringify(named) !== JSON.stringify(wanted)) return differs();
  if (expect.issue && !verdict.issues.some((issue) => issue.field === expect.field && issue.code === expect.issue))
    return differs();
  return undefined;
}

export type RunOptions = {
  corpusDir?: string;
  /** A migrated, empty database to run on (the test's driver); default: a fresh in-memory PGlite. */
  db?: Database;
  /** Only these actions (default: all). */
  actions?: string[];
};

/**
 * Runs every case of the corpus through the real path and through the baseline. Files run in
 * name order and cases in file order; after each file the proposals it created that are still
 * pending are rejected and the systems of record reset, so every file starts from the seeded world.
 */
export async function runCorpus(options: RunOptions = {}): Promise<CorpusRun> {
  const started = performance.now();
  const suites = loadCorpus(options.corpusDir ?? DEFAULT_CORPUS_DIR).filter(
    (suite) => !options.actions || options.actions.includes(suite.action),
  );
  const world = await openCorpusWorld({ db: options.db });
  const out: SuiteResult[] = [];
  try {
    for (const suite of suites) {
      const results: CaseResult[] = [];
      let settled = 0;
      for (const file of suite.files) {
        const created: string[] = [];
        for (const item of suite.cases.filter((c) => c.file === file)) {
          const gates = await sendToGates(world, world.keys[item.agent as Tenant], item.body, item.contentType);
          if (gates.outcome === 'accepted') created.push(gates.proposalId);
          results.push({
            case: item,
            gates,
            baseline: baselineValidate(item.body),
            mismatch: checkExpectation(item.expect, gates),
          });
        }
        settled += await world.settle(created);
      }
      out.push({ suite, results, settled });
    }
  } finally {
    await world.close();
  }
  return { suites: out, durationMs: performance.now() - started };
}

// ---------------------------------------------------------------------------------------------
// The report

export type SideCounts = { invalidAccepted: number; invalidTotal: number; validRejected: number; validTotal: number };

export type RepairSummary = {
  originals: number;
  rejectedOriginals: number;
  repairs: number;
  chains: number;
  chainsAccepted: number;
  chainsAtLimit: number;
  chainsStillRejected: number;
};

export type SuiteSummary = {
  action: string;
  version: number;
  cases: number;
  gates: SideCounts;
  baseline: SideCounts;
  crashed: number;
  /** "kind code" → count, and "kind code field:issue" → count, for the gates' rejections. */
  byCode: Map<string, number>;
  byField: Map<string, number>;
  baselineReasons: Map<string, number>;
  repairs: RepairSummary;
  mismatches: { where: string; problem: string }[];
};

const isValid = (item: LoadedCase) => item.expect.outcome === 'accepted';

function bump(map: Map<string, number>, key: string) {
  map.set(key, (map.get(key) ?? 0) + 1);
}

function repairSummary(results: CaseResult[]): RepairSummary {
  const byName = new Map(results.map((result) => [result.case.name, result]));
  const rootOf = (result: CaseResult): string => {
    let current = result;
    while (current.case.repairs) current = byName.get(current.case.repairs)!;
    return current.case.name;
  };
  const chains = new Map<string, CaseResult[]>();
  for (const result of results) {
    if (!result.case.repairs) continue;
    const root = rootOf(result);
    chains.set(root, [...(chains.get(root) ?? []), result]);
  }
  const summary: RepairSummary = {
    originals: 0,
    rejectedOriginals: 0,
    repairs: 0,
    chains: chains.size,
    chainsAccepted: 0,
    chainsAtLimit: 0,
    chainsStillRejected: 0,
  };
  for (const result of results) {
    if (result.case.repairs) summary.repairs++;
    else {
      summary.originals++;
      if (result.gates.outcome !== 'accepted') summary.rejectedOriginals++;
    }
  }
  for (const chain of chains.values()) {
    const last = chain.at(-1)!.gates;
    if (last.outcome === 'accepted') summary.chainsAccepted++;
    else if (last.outcome === 'rejected' && last.code === 'repair_limit_reached') summary.chainsAtLimit++;
    else summary.chainsStillRejected++;
  }
  return summary;
}

export function summarize(result: SuiteResult): SuiteSummary {
  const empty = (): SideCounts => ({ invalidAccepted: 0, invalidTotal: 0, validRejected: 0, validTotal: 0 });
  const summary: SuiteSummary = {
    action: result.suite.action,
    version: result.suite.version,
    cases: result.results.length,
    gates: empty(),
    baseline: empty(),
    crashed: 0,
    byCode: new Map(),
    byField: new Map(),
    baselineReasons: new Map(),
    repairs: repairSummary(result.results),
    mismatches: [],
  };
  for (const { case: item, gates, baseline, mismatch } of result.results) {
    const gatesAccepted = gates.outcome === 'accepted';
    for (const [side, accepted] of [
      [summary.gates, gatesAccepted],
      [summary.baseline, baseline.accepted],
    ] as const) {
      if (isValid(item)) {
        side.validTotal++;
        if (!accepted) side.validRejected++;
      } else {
        side.invalidTotal++;
        if (accepted) side.invalidAccepted++;
      }
    }
    if (gates.outcome === 'crashed') summary.crashed++;
    if (gates.outcome === 'rejected') {
      bump(summary.byCode, `${gates.kind} ${gates.code}`);
      for (const issue of gates.issues)
        bump(summary.byField, `${gates.kind} ${gates.code} ${issue.field}:${issue.code}`);
    }
    if (!baseline.accepted) bump(summary.baselineReasons, baseline.reason);
    if (mismatch) summary.mismatches.push({ where: `${item.file} ${item.name}`, problem: mismatch });
  }
  return summary;
}

/** Why the run fails (empty when it passes): the gates' two rates must be zero and every expectation met. */
export function failures(run: CorpusRun): string[] {
  const problems: string[] = [];
  for (const result of run.suites) {
    const s = summarize(result);
    const label = `${s.action} v${s.version}`;
    if (s.gates.invalidAccepted > 0)
      problems.push(`${label}: the gates accepted ${s.gates.invalidAccepted} invalid request(s)`);
    if (s.gates.validRejected > 0)
      problems.push(`${label}: the gates rejected ${s.gates.validRejected} valid request(s)`);
    for (const mismatch of s.mismatches) problems.push(`${label} ${mismatch.where}: ${mismatch.problem}`);
  }
  return problems;
}

const rate = (part: number, total: number) =>
  `${part} / ${total}${total > 0 ? ` (${((100 * part) / total).toFixed(1)}%)` : ''}`;
const pad = (text: string, width: number) => text.padEnd(width);

function table(map: Map<string, number>, indent: string): string[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key, count]) => `${indent}${pad(key, 72)}${String(count).padStart(4)}`);
}

function totals(summaries: SuiteSummary[]): { gates: SideCounts; baseline: SideCounts } {
  const add = (a: SideCounts, b: SideCounts): SideCounts => ({
    invalidAccepted: a.invalidAccepted + b.invalidAccepted,
    invalidTotal: a.invalidTotal + b.invalidTotal,
    validRejected: a.validRejected + b.validRejected,
    validTotal: a.validTotal + b.validTotal,
  });
  const zero: SideCounts = { invalidAccepted: 0, invalidTotal: 0, validRejected: 0, validTotal: 0 };
  return {
    gates: summaries.map((s) => s.gates).reduce(add, zero),
    baseline: summaries.map((s) => s.baseline).reduce(add, zero),
  };
}

/** The report `npm run corpus` prints. */
export function formatReport(run: CorpusRun): string {
  const lines: string[] = [];
  const summaries = run.suites.map(summarize);
  const header = (label: string) => `  ${pad(label, 22)}${pad('gates', 22)}baseline (permissive)`;
  const row = (label: string, gates: string, baseline: string) => `  ${pad(label, 22)}${pad(gates, 22)}${baseline}`;
  for (const s of summaries) {
    const files = run.suites.find((r) => r.suite.action === s.action && r.suite.version === s.version)!.suite.files;
    lines.push(
      `${s.action} v${s.version} — ${s.cases} cases (${s.gates.validTotal} valid, ${s.gates.invalidTotal} invalid) ` +
        `in ${files.join(', ')}`,
    );
    lines.push(header(''));
    lines.push(
      row(
        'invalid accepted',
        rate(s.gates.invalidAccepted, s.gates.invalidTotal),
        rate(s.baseline.invalidAccepted, s.baseline.invalidTotal),
      ),
    );
    lines.push(
      row(
        'valid rejected',
        rate(s.gates.validRejected, s.gates.validTotal),
        rate(s.baseline.validRejected, s.baseline.validTotal),
      ),
    );
    if (s.crashed > 0) lines.push(`  unhandled errors (would be 500): ${s.crashed}`);
    lines.push('  gates: rejections by kind and code');
    lines.push(...table(s.byCode, '    '));
    lines.push('  gates: rejected fields by kind, code and field:issue');
    lines.push(...table(s.byField, '    '));
    lines.push('  baseline: rejections by reason');
    lines.push(...(s.baselineReasons.size > 0 ? table(s.baselineReasons, '    ') : ['    (none)']));
    const r = s.repairs;
    const per = (n: number, d: number) => (d > 0 ? (n / d).toFixed(2) : '0.00');
    lines.push(
      `  repairs: ${r.repairs} repair attempts over ${r.originals} original requests = ` +
        `${per(r.repairs, r.originals)} per original (${per(r.repairs, r.rejectedOriginals)} per rejected original); ` +
        `${r.chains} chains: ${r.chainsAccepted} ended accepted, ` +
        `${r.chainsAtLimit} at repair_limit_reached, ${r.chainsStillRejected} still rejected`,
    );
    lines.push(`  expectations: ${s.cases - s.mismatches.length} / ${s.cases} met`);
    for (const m of s.mismatches) lines.push(`    MISMATCH ${m.where}: ${m.problem}`);
    lines.push('');
  }
  const all = totals(summaries);
  const cases = summaries.reduce((n, s) => n + s.cases, 0);
  lines.push(`all — ${cases} cases in ${(run.durationMs / 1000).toFixed(1)} s`);
  lines.push(header(''));
  lines.push(
    row(
      'invalid accepted',
      rate(all.gates.invalidAccepted, all.gates.invalidTotal),
      rate(all.baseline.invalidAccepted, all.baseline.invalidTotal),
    ),
  );
  lines.push(
    row(
      'valid rejected',
      rate(all.gates.validRejected, all.gates.validTotal),
      rate(all.baseline.validRejected, all.baseline.validTotal),
    ),
  );
  const problems = failures(run);
  lines.push(
    problems.length === 0
      ? 'PASS: the gates accepted no invalid request, rejected no valid one, and met every expectation.'
      : `FAIL: ${problems.length} problem(s):`,
  );
  for (const problem of problems) lines.push(`  - ${problem}`);
  return lines.join('\n');
}
