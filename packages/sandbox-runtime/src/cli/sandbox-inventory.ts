/**
 * The sandboxes under a directory, as `list` and `rm` see them: their record, their size on disk,
 * their last use, and whether a live process runs them. The library writes no lock or pid file; a
 * running sandbox shows in the process table instead, as the supervisor started from its
 * `.supervisor/supervisor.js`.
 */
import { execFile } from 'node:child_process';
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { srtRecordSchema, type SrtRecord } from '../srt-options.js';

export interface SandboxEntry {
  readonly sandboxId: string;
  /** `<directory>/<sandboxId>`. */
  readonly path: string;
  /** Its sandbox.json, or undefined when unreadable (see `problem`). */
  readonly record: SrtRecord | undefined;
  readonly problem: string | undefined;
  /** Bytes on disk (allocated blocks; hard-linked files counted once, as pnpm's store links them). */
  readonly size: number;
  /** The latest change to any of its files: its last start, or the last write of its processes. */
  readonly lastUsed: Date;
}

const SUPERVISOR_SCRIPT = join('.supervisor', 'supervisor.js');

/** Each directory under `directory` holding a sandbox.json; none when `directory` does not exist. */
export async function listSandboxes(directory: string): Promise<SandboxEntry[]> {
  let children: Dirent[];
  try {
    children = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: SandboxEntry[] = [];
  for (const child of children) {
    if (!child.isDirectory()) continue;
    const entry = await describeSandbox(join(directory, child.name), child.name);
    if (entry) entries.push(entry);
  }
  return entries.sort((a, b) => b.lastUsed.getTime() - a.lastUsed.getTime());
}

/** The sandbox at `path`, or undefined when it has no sandbox.json (not a sandbox). */
export async function describeSandbox(path: string, sandboxId: string): Promise<SandboxEntry | undefined> {
  let text: string;
  try {
    text = await readFile(join(path, 'sandbox.json'), 'utf8');
  } catch {
    return undefined;
  }
  let record: SrtRecord | undefined;
  let problem: string | undefined;
  try {
    const parsed = srtRecordSchema.safeParse(JSON.parse(text));
    if (parsed.success) record = parsed.data;
    else problem = 'sandbox.json does not describe an srt sandbox';
  } catch {
    problem = 'sandbox.json is not valid JSON';
  }
  const usage = await diskUsage(path);
  return { sandboxId, path, record, problem, size: usage.bytes, lastUsed: new Date(usage.lastModified) };
}

/** Allocated bytes and the latest mtime under `root`, without following symbolic links. */
async function diskUsage(root: string): Promise<{ bytes: number; lastModified: number }> {
  const seen = new Set<string>();
  let bytes = 0;
  let lastModified = 0;
  const visit = async (path: string): Promise<void> => {
    let stats;
    try {
      stats = await lstat(path);
    } catch {
      return; // removed while we walked
    }
    lastModified = Math.max(lastModified, stats.mtimeMs);
    if (stats.nlink > 1 && !stats.isDirectory()) {
      const key = `${stats.dev}:${stats.ino}`;
      if (seen.has(key)) return;
      seen.add(key);
    }
    bytes += stats.blocks * 512;
    if (!stats.isDirectory()) return;
    let names: string[];
    try {
      names = await readdir(path);
    } catch {
      return;
    }
    for (const name of names) await visit(join(path, name));
  };
  await visit(root);
  return { bytes, lastModified };
}

export interface LiveProcess {
  readonly pid: number;
  /** Its command line, for the user to recognise it. */
  readonly command: string;
}

/**
 * For each sandbox path, the process that runs it now, if any: the process outside the sandbox
 * that started its supervisor (on Linux; elsewhere a process of the supervisor itself).
 */
export async function findLiveSandboxes(paths: readonly string[]): Promise<Map<string, LiveProcess>> {
  const table = await processTable();
  const live = new Map<string, LiveProcess>();
  for (const path of paths) {
    const script = join(path, SUPERVISOR_SCRIPT);
    const runs = (pid: number) => table.get(pid)?.command.includes(script) === true;
    const found = [...table.keys()].find(pid => pid !== process.pid && runs(pid));
    if (found === undefined) continue;
    // Up from the fenced processes to the first one that is not: the application holding it.
    let owner = found;
    for (let parent = table.get(owner)?.parent; parent !== undefined && runs(parent);) {
      owner = parent;
      parent = table.get(owner)?.parent;
    }
    const holder = table.get(owner)?.parent;
    const pid = holder !== undefined && table.has(holder) && holder > 1 ? holder : owner;
    live.set(path, { pid, command: table.get(pid)!.command });
  }
  return live;
}

interface ProcessInfo {
  readonly command: string;
  readonly parent: number | undefined;
}

async function processTable(): Promise<Map<number, ProcessInfo>> {
  const table = new Map<number, ProcessInfo>();
  if (process.platform === 'linux') {
    for (const name of await readdir('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8');
        const stat = await readFile(`/proc/${name}/stat`, 'utf8');
        // The field after the command name in parentheses, which may itself hold spaces or parentheses.
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        table.set(Number(name), { command: cmdline.replace(/\0+$/, '').replace(/\0/g, ' '), parent });
      } catch {
        // The process ended while we read.
      }
    }
    return table;
  }
  const { stdout } = await promisify(execFile)('ps', ['-axww', '-o', 'pid=,ppid=,args='], {
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const row of stdout.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(row);
    if (match) table.set(Number(match[1]), { parent: Number(match[2]), command: match[3]! });
  }
  return table;
}
