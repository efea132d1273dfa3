import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  PROCESS_TAG_VARIABLE,
  findSandboxProcesses,
  findTagInEnviron,
  parseProcStat,
  parsePsListing,
  terminateSandboxProcesses,
} from './process-tree.js';

const isLinux = process.platform === 'linux';
const workDirectory = mkdtempSync(join(tmpdir(), 'process-tree-test-'));
const started = new Set<number>();
// Every process a test starts carries this marker, so a failing test's daemons are cleaned up too.
const runId = randomUUID();
const runMarker = Buffer.from(`PROCESS_TREE_TEST_RUN=${runId}\0`);

afterEach(() => {
  const marked = isLinux
    ? readdirSync('/proc')
        .filter(name => /^\d+$/.test(name))
        .filter(name => {
          try {
            return readFileSync(`/proc/${name}/environ`).includes(runMarker);
          } catch {
            return false;
          }
        })
        .map(Number)
    : [];
  for (const pid of new Set([...started, ...marked])) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  started.clear();
});

afterAll(() => rmSync(workDirectory, { recursive: true, force: true }));

function uniqueTag(): string {
  return `test-${randomUUID()}`;
}

interface Started {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function start(command: string, args: string[], tag?: string): Started {
  const env: NodeJS.ProcessEnv = { ...process.env, PROCESS_TREE_TEST_RUN: runId };
  delete env[PROCESS_TAG_VARIABLE];
  if (tag !== undefined) env[PROCESS_TAG_VARIABLE] = tag;
  const child = spawn(command, args, { env, stdio: 'ignore' });
  const pid = child.pid!;
  started.add(pid);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, pid, exited };
}

function bash(script: string, tag?: string, ...args: string[]): Started {
  return start('bash', ['-c', script, ...args], tag);
}

function readStat(pid: number): { state: string; ppid: number; session: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, ppid: Number(fields[1]), session: Number(fields[3]) };
  } catch {
    return undefined;
  }
}

/** Gone means no such pid, or a zombie waiting to be reaped. */
function isGone(pid: number): boolean {
  const stat = readStat(pid);
  return stat === undefined || stat.state === 'Z' || stat.state === 'X';
}

async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise(resolve => setTimeout(resolve, 20));
  }
}

function readPidFile(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function commandName(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter(name => /^\d+$/.test(name))
    .map(Number)
    .filter(candidate => readStat(candidate)?.ppid === pid);
}

describe.runIf(isLinux)('findSandboxProcesses (Linux)', () => {
  it('finds processes by exact tag, and not those whose tag only starts with it', async () => {
    const tag = uniqueTag();
    const tagged = start('sleep', ['1000'], tag);
    const longer = start('sleep', ['1000'], `${tag}-other`);
    const untagged = start('sleep', ['1000']);

    const found = await waitFor(async () => {
      const pids = await findSandboxProcesses({ tag });
      return pids.includes(tagged.pid) && pids;
    });
    expect(found).toEqual([tagged.pid]);
    expect(found).not.toContain(longer.pid);
    expect(found).not.toContain(untagged.pid);
  });

  it('finds nothing when given no condition', async () => {
    start('sleep', ['1000'], uniqueTag());
    expect(await findSandboxProcesses({})).toEqual([]);
  });

  it('finds descendants of a root, but never the calling process', async () => {
    const child = start('sleep', ['1000']);
    const found = await findSandboxProcesses({ roots: [process.pid] });
    expect(found).toContain(child.pid);
    expect(found).not.toContain(process.pid);
  });

  it('finds an untagged descendant of a tagged process through the tree', async () => {
    const tag = uniqueTag();
    // `env -i` starts sleep with an empty environment: only its parent carries the tag.
    const parent = bash('env -i sleep 1000 & wait', tag);
    const cleared = await waitFor(() => childrenOf(parent.pid).find(pid => commandName(pid) === 'sleep'));
    started.add(cleared);
    expect(findTagInEnviron(readFileSync(`/proc/${cleared}/environ`))).toBeUndefined();

    expect(await findSandboxProcesses({ tag })).toEqual([parent.pid, cleared].sort((a, b) => a - b));
  });

  it('leaves zombies out', async () => {
    const tag = uniqueTag();
    // bash forks a short sleep, then replaces itself with a long one, which never reaps its child: the
    // short sleep stays a zombie once it ends.
    const parent = bash('sleep 0.2 & exec sleep 1000', tag);
    const zombie = await waitFor(() =>
      childrenOf(parent.pid).find(pid => readStat(pid)?.state === 'Z' && readStat(parent.pid)?.state === 'S'),
    );
    const found = await findSandboxProcesses({ tag });
    expect(found).toContain(parent.pid);
    expect(found).not.toContain(zombie);
  });
});

describe.runIf(isLinux)('terminateSandboxProcesses (Linux)', () => {
  it('ends a plain tagged process with SIGTERM', async () => {
    const tag = uniqueTag();
    const sleeper = start('sleep', ['1000'], tag);
    await waitFor(async () => (await findSandboxProcesses({ tag })).includes(sleeper.pid));

    expect(await terminateSandboxProcesses({ tag }, { graceMs: 5_000 })).toBe(1);
    expect(await sleeper.exited).toEqual({ code: null, signal: 'SIGTERM' });
  });

  it('finds and ends a daemon that double-forked into a session of its own', async () => {
    const tag = uniqueTag();
    const pidFile = join(workDirectory, `${tag}.pid`);
    // The outer bash backgrounds setsid, which starts a new session; its bash backgrounds sleep and
    // exits, so sleep is reparented away from every tagged process.
    const outer = bash(
      `setsid bash -c 'sleep 1000 & echo $! > "$0"' "$0" </dev/null >/dev/null 2>&1 &`,
      tag,
      pidFile,
    );
    expect(await outer.exited).toEqual({ code: 0, signal: null });
    const daemon = await waitFor(() => readPidFile(pidFile));
    started.add(daemon);
    const parentIsSandboxProcess = (ppid: number): boolean => {
      try {
        return findTagInEnviron(readFileSync(`/proc/${ppid}/environ`)) === tag;
      } catch {
        return false;
      }
    };
    const daemonStat = await waitFor(() => {
      const stat = readStat(daemon);
      return stat !== undefined && !parentIsSandboxProcess(stat.ppid) && stat;
    });
    expect(daemonStat.session).not.toBe(readStat(process.pid)!.session);
    expect(isGone(daemon)).toBe(false);

    expect(await findSandboxProcesses({ tag })).toEqual([daemon]);
    expect(await terminateSandboxProcesses({ tag }, { graceMs: 5_000 })).toBe(1);
    expect(isGone(daemon)).toBe(true);
  });

  it('lets a process handle SIGTERM before the grace period ends', async () => {
    const tag = uniqueTag();
    const marker = join(workDirectory, `${tag}.term`);
    const handler = bash(`trap 'echo handled > "$0"; exit 0' TERM; sleep 1000 & wait`, tag, marker);
    await waitFor(async () => (await findSandboxProcesses({ tag })).length === 2);

    expect(await terminateSandboxProcesses({ tag }, { graceMs: 20_000 })).toBe(2);
    expect(await handler.exited).toEqual({ code: 0, signal: null });
    expect(readFileSync(marker, 'utf8')).toBe('handled\n');
  });

  it('kills a process that ignores SIGTERM once the grace period is over', async () => {
    const tag = uniqueTag();
    // An ignored signal stays ignored across exec, so both bash and its sleep ignore SIGTERM.
    const stubborn = bash(`trap '' TERM; sleep 1000 & wait`, tag);
    const found = await waitFor(async () => {
      const pids = await findSandboxProcesses({ tag });
      return pids.length === 2 && pids;
    });

    expect(await terminateSandboxProcesses({ tag }, { graceMs: 300 })).toBe(2);
    expect(await stubborn.exited).toEqual({ code: null, signal: 'SIGKILL' });
    for (const pid of found) expect(isGone(pid)).toBe(true);
  });

  it('leaves untagged processes and other tags alone', async () => {
    const base = uniqueTag();
    const first = start('sleep', ['1000'], `${base}:call-1`);
    const second = bash('sleep 1000 & wait', `${base}:call-2`);
    const otherTag = start('sleep', ['1000'], `${base}x:call-1`);
    const untagged = start('sleep', ['1000']);
    await waitFor(async () => (await findSandboxProcesses({ prefix: `${base}:` })).length === 3);

    expect(await terminateSandboxProcesses({ prefix: `${base}:` }, { graceMs: 5_000 })).toBe(3);
    await first.exited;
    await second.exited;
    expect(await findSandboxProcesses({ prefix: `${base}:` })).toEqual([]);
    expect(isGone(otherTag.pid)).toBe(false);
    expect(isGone(untagged.pid)).toBe(false);
  });

  it('ends a root and its descendants, tagged or not', async () => {
    const root = bash('sleep 1000 & sleep 1000 & wait');
    const descendants = await waitFor(() => {
      const pids = childrenOf(root.pid);
      return pids.length === 2 && pids;
    });

    expect(await terminateSandboxProcesses({ roots: [root.pid] }, { graceMs: 5_000 })).toBe(3);
    expect(await root.exited).toEqual({ code: null, signal: 'SIGTERM' });
    for (const pid of descendants) expect(isGone(pid)).toBe(true);
  });

  it('resolves with 0 at once when nothing matches, without waiting out the grace period', async () => {
    // The grace period is longer than the test timeout: waiting it out would fail the test.
    expect(await terminateSandboxProcesses({ tag: uniqueTag() }, { graceMs: 120_000 })).toBe(0);
    expect(await terminateSandboxProcesses({}, { graceMs: 120_000 })).toBe(0);
  });
});

describe('parsing', () => {
  it('reads state and ppid from a stat line whose command name holds spaces and parentheses', () => {
    expect(parseProcStat('4242 (we(ird) name)) S 17 4242 4242 0 -1 4194560 0 0')).toEqual({
      state: 'S',
      ppid: 17,
    });
    expect(parseProcStat('garbage')).toBeUndefined();
  });

  it('finds the tag variable in an environment block', () => {
    const block = (entries: string[]): Buffer => Buffer.from(entries.map(entry => `${entry}\0`).join(''));
    expect(findTagInEnviron(block(['PATH=/bin', `${PROCESS_TAG_VARIABLE}=abc:1`, 'HOME=/root']))).toBe(
      'abc:1',
    );
    expect(findTagInEnviron(block([`X_${PROCESS_TAG_VARIABLE}=abc:1`]))).toBeUndefined();
    expect(findTagInEnviron(block([`${PROCESS_TAG_VARIABLE}_X=abc:1`]))).toBeUndefined();
    expect(findTagInEnviron(Buffer.from(`${PROCESS_TAG_VARIABLE}=last`))).toBe('last');
    expect(findTagInEnviron(Buffer.alloc(0))).toBeUndefined();
  });

  it('parses a ps listing whose commands carry the environment (macOS)', () => {
    const listing = [
      '    1     0 Ss   /sbin/launchd',
      `  501     1 S    /bin/sleep 1000 PATH=/bin ${PROCESS_TAG_VARIABLE}=t:1 HOME=/Users/me`,
      `  502   501 Z+   (sleep)`,
      `  503     1 T    echo ${PROCESS_TAG_VARIABLE}=fake PATH=/bin ${PROCESS_TAG_VARIABLE}=t:2`,
      '',
    ].join('\n');
    expect(parsePsListing(listing)).toEqual([
      { pid: 1, ppid: 0, state: 'S', tag: undefined },
      { pid: 501, ppid: 1, state: 'S', tag: 't:1' },
      { pid: 502, ppid: 501, state: 'Z', tag: undefined },
      { pid: 503, ppid: 1, state: 'T', tag: 't:2' },
    ]);
  });
});
