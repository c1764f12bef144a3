import fs from 'node:fs';

/** The nearest-rank percentile of ascending `sorted`; NaN when empty. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The process and all its descendants (Linux /proc). */
function processTree(rootPid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(parents.get(pid) ?? []));
  }
  return tree;
}

/** The process and all its descendants, with their peak resident set (VmHWM) in MB. */
export function peakRss(rootPid: number): { pid: number; name: string; peakMb: number }[] {
  return processTree(rootPid).flatMap((pid) => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN);
      const name = /Name:\s+(.+)/.exec(status)?.[1] ?? '?';
      return Number.isNaN(kb) ? [] : [{ pid, name, peakMb: Math.round(kb / 1024) }];
    } catch {
      return [];
    }
  });
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
  return { total: processes.reduce((sum, process) => sum + process.peakMb, 0), processes: processes.map(({ name, peakMb }) => ({ name, peakMb })) };
}
