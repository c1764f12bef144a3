import fs from 'node:fs';
import { memoryOfTree, processTree } from '@/scripts/shared/proc';

/** The nearest-rank percentile of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The process and all its descendants, with their peak resident set (VmHWM) in MB. */
export function peakRss(rootPid: number): { pid: number; name: string; peakMb: number }[] {
  return memoryOfTree(rootPid, 'VmHWM').map(({ pid, name, mb }) => ({ pid, name, peakMb: Math.round(mb) }));
}

/**
 * Starts the peak resident set (VmHWM) of the process tree afresh at its current size (Linux:
 * `5` to /proc/<pid>/clear_refs), so a later peakRss is the peak of what ran in between. Answers
 * false when the kernel refused for any process: the peaks then count from the process start.
 */
export function resetPeakRss(rootPid: number): boolean {
  let all = true;
  for (const pid of processTree(rootPid)) {
    try {
      fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      all = false;
    }
  }
  return all;
}

/** The total of peakRss and each process's part, as results.json records it. */
export function peakRssSummary(rootPids: number[]): { total: number; processes: { name: string; peakMb: number }[] } {
  const processes = rootPids.flatMap((pid) => peakRss(pid));
  return {
    total: processes.reduce((sum, process) => sum + process.peakMb, 0),
    processes: processes.map(({ name, peakMb }) => ({ name, peakMb })),
  };
}
