/**
 * Finds and ends every process a sandbox started, daemons included.
 *
 * Runs inside the sandbox as part of the supervisor, so it uses Node built-ins only. A process that
 * double-forks and calls setsid leaves both the process tree and the process group of the command
 * that started it, but it keeps the environment: the supervisor starts each command with
 * `AI_SDK_SANDBOX_TAG=<processTag>:<callId>`, and the tag is how its descendants are found again.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

export const PROCESS_TAG_VARIABLE = 'AI_SDK_SANDBOX_TAG';

/** Which processes to find: all conditions are alternatives (a process matching any one is found). */
export interface SandboxProcessMatch {
  /** The tag variable equals this exactly. */
  readonly tag?: string;
  /** The tag variable starts with this (e.g. `<processTag>:` for every call of one tag). */
  readonly prefix?: string;
  /** These pids themselves and all their descendants, tagged or not. */
  readonly roots?: readonly number[];
  /**
   * Every process of the calling process's PID namespace but itself and its ancestors. Only where
   * that namespace is the sandbox's alone (srt): it also finds a daemon that dropped its
   * environment, and with it the tag. Never for the local sandbox, whose namespace is the host's.
   */
  readonly wholeNamespace?: boolean;
}

/** One process as the listing sees it. */
export interface ListedProcess {
  readonly pid: number;
  readonly ppid: number;
  /** One-letter state as in /proc/<pid>/stat or `ps -o stat` ('Z' zombie, 'T' stopped, …). */
  readonly state: string;
  /** Value of the tag variable, if the process has one and we could read it. */
  readonly tag: string | undefined;
}

/**
 * Pids (never the calling process) whose environment has the tag variable equal to `tag` or starting
 * with `prefix`, plus `roots` and every descendant of a root or of a tagged process (a descendant that
 * cleared its environment is still found through its parent). Zombies are left out: they are gone
 * already, only not reaped.
 */
export async function findSandboxProcesses(match: SandboxProcessMatch): Promise<number[]> {
  return (await findEntries(match)).map(entry => entry.pid);
}

/**
 * Sends SIGTERM to every matching process, then keeps scanning (processes may fork while they are
 * being ended): new matches get SIGTERM too until `graceMs` has passed, after which whatever still
 * matches gets SIGKILL. Resolves with the number of distinct pids signalled once nothing matches, or
 * anyway after `graceMs` + 5 s. Never throws for a pid that vanished or may not be signalled.
 */
export async function terminateSandboxProcesses(
  match: SandboxProcessMatch,
  options: { graceMs: number },
): Promise<number> {
  const graceMs = Math.max(0, options.graceMs);
  const hardCapMs = graceMs + 5_000;
  const start = Date.now();
  const signalled = new Set<number>();
  let pause = 10;

  for (;;) {
    const entries = await findEntries(match);
    if (entries.length === 0) return signalled.size;

    const elapsed = Date.now() - start;
    if (elapsed >= hardCapMs) return signalled.size;

    const pastGrace = elapsed >= graceMs;
    for (const entry of entries) {
      if (pastGrace) {
        sendSignal(entry.pid, 'SIGKILL');
      } else if (!signalled.has(entry.pid)) {
        sendSignal(entry.pid, 'SIGTERM');
        // A stopped process would only see SIGTERM once continued.
        if (entry.state === 'T' || entry.state === 't') sendSignal(entry.pid, 'SIGCONT');
      }
      signalled.add(entry.pid);
    }

    // Wake up right at the end of the grace period so SIGKILL is not late; back off otherwise.
    const untilGrace = graceMs - (Date.now() - start);
    const wait = untilGrace > 0 ? Math.min(pause, untilGrace) : pause;
    await new Promise(resolve => setTimeout(resolve, wait));
    pause = Math.min(pause * 2, 100);
  }
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: it exited meanwhile. EPERM: not ours to end; the hard cap keeps us from waiting forever.
  }
}

async function findEntries(match: SandboxProcessMatch): Promise<ListedProcess[]> {
  const wantsTag = match.tag !== undefined || match.prefix !== undefined;
  const roots = match.roots ?? [];
  if (!wantsTag && roots.length === 0 && !match.wholeNamespace) return [];

  const all = process.platform === 'linux' ? await listFromProc(wantsTag) : await listFromPs();
  return selectMatches(all, match);
}

/** Picks the matches out of a full process list; shared by both ways of listing. */
function selectMatches(all: readonly ListedProcess[], match: SandboxProcessMatch): ListedProcess[] {
  const tagMatches = (tag: string | undefined): boolean =>
    tag !== undefined &&
    ((match.tag !== undefined && tag === match.tag) ||
      (match.prefix !== undefined && tag.startsWith(match.prefix)));

  const childrenOf = new Map<number, ListedProcess[]>();
  const byPid = new Map<number, ListedProcess>();
  for (const entry of all) {
    byPid.set(entry.pid, entry);
    const siblings = childrenOf.get(entry.ppid);
    if (siblings === undefined) childrenOf.set(entry.ppid, [entry]);
    else siblings.push(entry);
  }

  const found = new Set<number>();
  const pending: number[] = [];
  for (const pid of match.roots ?? []) if (byPid.has(pid)) pending.push(pid);
  for (const entry of all) if (tagMatches(entry.tag)) pending.push(entry.pid);
  if (match.wholeNamespace) {
    const ancestors = new Set<number>();
    for (let pid = process.pid; pid > 0 && !ancestors.has(pid); pid = byPid.get(pid)?.ppid ?? 0)
      ancestors.add(pid);
    for (const entry of all) if (!ancestors.has(entry.pid)) pending.push(entry.pid);
  }
  while (pending.length > 0) {
    const pid = pending.pop()!;
    if (found.has(pid)) continue;
    found.add(pid);
    for (const child of childrenOf.get(pid) ?? []) pending.push(child.pid);
  }

  const result: ListedProcess[] = [];
  for (const pid of found) {
    const entry = byPid.get(pid)!;
    // A zombie's parent (often this supervisor or init) still owes it a wait; it is gone for us.
    if (pid === process.pid || entry.state === 'Z' || entry.state === 'X') continue;
    result.push(entry);
  }
  return result.sort((a, b) => a.pid - b.pid);
}

// --- Linux: /proc -----------------------------------------------------------------------------

/** Reads a few hundred small files at a time at most, so a busy host does not run out of descriptors. */
const PROC_BATCH = 64;

/*
 * Under srt, /proc is mounted by bubblewrap, but srt's seccomp helper then starts the command in a
 * PID namespace nested inside bubblewrap's. So /proc numbers processes one level up from where the
 * supervisor runs, and a pid read there would signal some other process here. Each entry is
 * therefore translated through the NSpid line of its status file (its pid at every level, ours
 * last); a process with no pid at our level is outside our namespace and not ours to end.
 */
async function listFromProc(readTags: boolean): Promise<ListedProcess[]> {
  const names = await readdir('/proc');
  const pids = names.filter(name => /^\d+$/.test(name)).map(Number);
  const depth = (await readNamespacePids('self'))?.length;
  const raw: Array<ListedProcess & { local: number | undefined }> = [];
  for (let i = 0; i < pids.length; i += PROC_BATCH) {
    const batch = await Promise.all(
      pids.slice(i, i + PROC_BATCH).map(pid => readProcEntry(pid, readTags, depth)),
    );
    for (const entry of batch) if (entry !== undefined) raw.push(entry);
  }
  const localOf = new Map(raw.map(entry => [entry.pid, entry.local]));
  const entries: ListedProcess[] = [];
  for (const entry of raw) {
    if (entry.local === undefined) continue;
    entries.push({
      pid: entry.local,
      ppid: localOf.get(entry.ppid) ?? 0,
      state: entry.state,
      tag: entry.tag,
    });
  }
  return entries;
}

async function readProcEntry(
  pid: number,
  readTag: boolean,
  depth: number | undefined,
): Promise<(ListedProcess & { local: number | undefined }) | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited between readdir and now
  }
  const parsed = parseProcStat(stat);
  if (parsed === undefined) return undefined;
  let local: number | undefined = pid;
  if (depth !== undefined) {
    const levels = await readNamespacePids(String(pid));
    local = levels && levels.length === depth ? levels[levels.length - 1] : undefined;
  }
  const tag = readTag && local !== undefined ? await readProcTag(pid) : undefined;
  return { pid, ppid: parsed.ppid, state: parsed.state, tag, local };
}

/** The process's pid in each PID namespace it belongs to, outermost first; undefined without NSpid. */
async function readNamespacePids(pid: string): Promise<number[] | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const line = /^NSpid:\s*(.+)$/m.exec(status)?.[1];
    return line ? line.trim().split(/\s+/).map(Number) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `pid (comm) state ppid …`: comm may hold spaces and parentheses, so the fields after it are found
 * from the last `)`.
 */
export function parseProcStat(stat: string): { state: string; ppid: number } | undefined {
  const close = stat.lastIndexOf(')');
  if (close === -1) return undefined;
  const fields = stat.slice(close + 2).split(' ');
  const state = fields[0];
  const ppid = Number(fields[1]);
  if (state === undefined || state === '' || !Number.isInteger(ppid)) return undefined;
  return { state, ppid };
}

async function readProcTag(pid: number): Promise<string | undefined> {
  let environ: Buffer;
  try {
    environ = await readFile(`/proc/${pid}/environ`);
  } catch {
    return undefined; // vanished, or another user's process we may not read
  }
  return findTagInEnviron(environ);
}

const TAG_ASSIGNMENT = Buffer.from(`${PROCESS_TAG_VARIABLE}=`);

/** Finds the tag in a NUL-separated environment block without decoding the whole block. */
export function findTagInEnviron(environ: Buffer): string | undefined {
  let from = 0;
  while (from < environ.length) {
    const end = environ.indexOf(0, from);
    const stop = end === -1 ? environ.length : end;
    if (stop - from >= TAG_ASSIGNMENT.length && environ.subarray(from, stop).indexOf(TAG_ASSIGNMENT) === 0) {
      return environ.toString('utf8', from + TAG_ASSIGNMENT.length, stop);
    }
    from = stop + 1;
  }
  return undefined;
}

// --- Elsewhere (macOS): ps ------------------------------------------------------------------------

async function listFromPs(): Promise<ListedProcess[]> {
  // `-E` makes macOS ps append each process's environment to its command (own processes only).
  const output = await new Promise<string>(resolve => {
    execFile(
      'ps',
      ['-axwwE', '-o', 'pid=,ppid=,stat=,command='],
      { maxBuffer: 256 * 1024 * 1024 },
      (_error, stdout) => resolve(typeof stdout === 'string' ? stdout : ''),
    );
  });
  return parsePsListing(output);
}

const TAG_IN_COMMAND = new RegExp(`(?:^|\\s)${PROCESS_TAG_VARIABLE}=(\\S*)`, 'g');

/**
 * Parses `ps -o pid=,ppid=,stat=,command=` output whose command column carries the environment.
 * A command line that mentions the variable itself could be mistaken for a tag; only the last
 * occurrence is used, since the environment comes after the arguments.
 */
export function parsePsListing(output: string): ListedProcess[] {
  const entries: ListedProcess[] = [];
  for (const line of output.split('\n')) {
    const fields = /^\s*(\d+)\s+(\d+)\s+(\S+)\s?(.*)$/.exec(line);
    if (fields === null) continue;
    const [, pid, ppid, stat, command = ''] = fields;
    const tag = [...command.matchAll(TAG_IN_COMMAND)].at(-1)?.[1];
    entries.push({ pid: Number(pid), ppid: Number(ppid), state: stat!.charAt(0), tag });
  }
  return entries;
}
