/** The Markdown docs/performance.md shows: one table of checks, then the measured series. */
import type { Settlement, Verdict } from './outcomes';
import type { RunsReport } from './runs';
import type { BurstReport } from './sigkill';
import type { SoakReport } from './soak';

export type Check = { phase: string; name: string; pass: boolean; measured: string };

const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');

/** The checks of one phase's outcome verdict. */
export function verdictChecks(phase: string, verdict: Verdict, settlement: Settlement): Check[] {
  return [
    {
      phase,
      name: 'every proposal final after reconciliation',
      pass: verdict.notFinal === 0,
      measured: `${verdict.proposals} proposals: ${statusList(verdict.statuses)}`,
    },
    {
      phase,
      name: 'zero double effects',
      pass: verdict.doubleEffects === 0,
      measured: `${verdict.effects} effects for ${verdict.operations} operations, ${verdict.doubleEffects} double`,
    },
    {
      phase,
      name: 'systems of record = proposals recorded as succeeded',
      pass: verdict.mismatches === 0,
      measured:
        `${verdict.succeeded} succeeded, ${verdict.effects} effects, ${verdict.mismatches} mismatches; ` +
        `${settlement.unknownAtSomePoint} unknown outcomes reconciled ` +
        `(${settlement.settledAfterExpiry} after command expiry)`,
    },
  ];
}

export function markdown(input: {
  command: string;
  seed: number;
  checks: Check[];
  runs?: RunsReport;
  soak?: SoakReport;
  burst?: BurstReport;
  machine: { cpus: number; cpuModel: string; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  seconds: number;
}): string {
  const lines = ['| Phase | Check | Result | Measured |', '| --- | --- | --- | --- |'];
  for (const check of input.checks)
    lines.push(`| ${check.phase} | ${check.name} | ${check.pass ? 'PASS' : '**FAIL**'} | ${check.measured} |`);
  const notes: string[] = [];
  if (input.runs) {
    const r = input.runs;
    notes.push(
      `Randomized runs: ${r.runs} at concurrency ${r.concurrency} in ${r.seconds} s (seed ${r.seed}); ` +
        `scenarios ${statusList(r.scenarios)}; ${r.sharedResource} on a shared ` +
        `resource, ${r.revisions} revisions, ${r.replays} replays, executor faults ` +
        `queued: ${statusList(r.faultsQueued) || 'none'}.`,
    );
  }
  if (input.soak) {
    const s = input.soak;
    notes.push(
      `Soak: ${s.sent} proposals in ${s.seconds} s (${s.achievedRate}/s of ${s.rate}/s asked), each decided ` +
        `(${Math.round(s.approveFraction * 100)} % approved); server RSS every ${s.server.intervalSeconds} s ` +
        `after a ${s.server.warmupSeconds} s warm-up: min ${s.server.minMb} MB, max ${s.server.maxMb} MB, ` +
        `median first third ${s.server.firstThirdMedianMb} MB → last third ${s.server.lastThirdMedianMb} MB; ` +
        `whole demo tree (with the systems of record, whose ledger grows with every ` +
        `hold) ${s.demoTree.firstThirdMedianMb} → ${s.demoTree.lastThirdMedianMb} MB.`,
    );
  }
  if (input.burst) {
    const b = input.burst;
    notes.push(
      `SIGKILL: ${b.operations} operations (proposal + approval) at concurrency ${b.concurrency}; killed ` +
        `with ${b.unansweredAtKill} not fully answered, down ${b.downSeconds} s; sent again: ` +
        `proposals ${statusList(b.retried.proposals) || 'none'}, ` +
        `approvals ${statusList(b.retried.approvals) || 'none'} (HTTP status → count).`,
    );
  }
  const m = input.machine;
  notes.push(
    `${m.cpus} × ${m.cpuModel}, load average ${m.loadAverageAtStart.join(' / ')} at the ` +
      `start, ${m.loadAverageAtEnd.join(' / ')} at the end; ${input.seconds} s in all. Command: ` +
      `\`${input.command}\`.`,
  );
  return `${lines.join('\n')}\n\n${notes.map((note) => `- ${note}`).join('\n')}\n`;
}
