/** Process figures from /proc (Linux): CPU time of a process or a process tree, and resident memory. */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface Stat {
  ppid: number;
  cpuMs: number;
}

function stat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ppid = Number(rest[1]);
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  return { ppid, cpuMs: ((utime + stime) * 1000) / TICKS_PER_SECOND };
}

/** User + system CPU of one process so far, in ms (0 once it is gone). */
export function cpuMs(pid: number): number {
  return stat(pid)?.cpuMs ?? 0;
}

/**
 * User + system CPU of a process and all its live descendants, in ms: the local control plane is one
 * kube-testenv process with etcd, kube-apiserver and the controllers as its children.
 */
export function treeCpuMs(root: number): number {
  const children = new Map<number, number[]>();
  const own = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (!s) continue;
    own.set(pid, s.cpuMs);
    const list = children.get(s.ppid) ?? [];
    list.push(pid);
    children.set(s.ppid, list);
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    total += own.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Resident set size in MiB (0 once the process is gone). */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return Number(m?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}
