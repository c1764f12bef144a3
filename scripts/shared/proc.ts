/** Readings of this machine for the bench and resilience scripts (Linux /proc). */
import fs from 'node:fs';
import os from 'node:os';

/** The pids of a process and all its descendants. */
export function processTree(rootPid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const tree: number[] = [];
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** One memory field of each process of a tree, in MB: `VmHWM` the peak resident set, `VmRSS` the current one. */
export function memoryOfTree(rootPid: number, field: 'VmHWM' | 'VmRSS'): { pid: number; name: string; mb: number }[] {
  const pattern = new RegExp(`${field}:\\s+(\\d+)`);
  return processTree(rootPid).flatMap((pid) => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(pattern.exec(status)?.[1] ?? NaN);
      const name = /Name:\s+(.+)/.exec(status)?.[1] ?? '?';
      return Number.isNaN(kb) ? [] : [{ pid, name, mb: kb / 1024 }];
    } catch {
      return [];
    }
  });
}

const loadAverage = () => os.loadavg().map((load) => Math.round(load * 100) / 100);

/** The machine a measurement ran on; call `machineAtStart()` first and `.end()` when done. */
export function machineAtStart() {
  const loadAverageAtStart = loadAverage();
  return {
    loadAverageAtStart,
    end: () => ({
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
      loadAverageAtStart,
      loadAverageAtEnd: loadAverage(),
      node: process.version,
    }),
  };
}
