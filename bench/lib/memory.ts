/**
 * Memory of process trees, read from /proc: RSS counts shared pages in full in every process, PSS
 * splits them among the processes sharing them, so PSS sums are what a tree really costs.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly name: string;
}

export interface Footprint {
  readonly rssMB: number;
  readonly pssMB: number;
  readonly processes: number;
}

export function listProcesses(): ProcessInfo[] {
  const list: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The name is in parentheses and may hold spaces; the fields after it are fixed.
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const ppid = Number(stat.slice(close + 2).split(' ')[1]);
      list.push({ pid: Number(entry), ppid, name });
    } catch {
      // Exited while we looked.
    }
  }
  return list;
}

/** `root` and everything under it. */
export function treeOf(root: number, all: readonly ProcessInfo[] = listProcesses()): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const info of all) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  const self = all.find(info => info.pid === root);
  const found: ProcessInfo[] = self ? [self] : [];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i]!.pid) ?? []));
  return found;
}

export function footprint(pids: readonly number[]): Footprint {
  let rss = 0;
  let pss = 0;
  let processes = 0;
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rss += kilobytes(text, 'Rss');
      pss += kilobytes(text, 'Pss');
      processes++;
    } catch {
      // Gone, or a kernel thread without mappings.
    }
  }
  return { rssMB: rss / 1024, pssMB: pss / 1024, processes };
}

function kilobytes(text: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** The host's direct children that appeared while `action` ran: the processes a sandbox start added. */
export async function childrenAddedBy<T>(
  action: () => Promise<T>,
): Promise<{ value: T; added: ProcessInfo[] }> {
  const before = new Set(
    listProcesses()
      .filter(info => info.ppid === process.pid)
      .map(info => info.pid),
  );
  const value = await action();
  const added = listProcesses().filter(info => info.ppid === process.pid && !before.has(info.pid));
  return { value, added };
}
