/**
 * What the attacks share: sandboxes in a scratch directory that is removed afterwards, commands on
 * the host for checking from outside, decoy files in the real home, and child host processes that
 * import the package bundle (see bundle-setup.ts) when an attack needs a host of its own.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, readdir, readFile, readlink, rm, rmdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';

import { createSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import type { SrtSandboxOptions } from '../srt-options.js';
import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { SECURITY_BUNDLE } from './bundle-setup.js';

export const marker = (label: string) => `${label}-${randomBytes(8).toString('hex')}`;

/** A scratch directory for sandboxes, outside the host's /tmp (which a sandbox sees as its own). */
export async function scratchDirectory(label: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join('/var/tmp', `ai-sdk-security-${label}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Opens sandboxes under one scratch directory and destroys them all at the end. */
export class SandboxPool {
  private readonly open = new Set<SrtNetworkSandboxSession>();

  constructor(readonly directory: string) {}

  async create(options: SrtSandboxOptions = {}): Promise<SrtNetworkSandboxSession> {
    const session = await createSrtNetworkSandboxSession({ directory: this.directory, ...options });
    this.open.add(session);
    return session;
  }

  /** Destroys every sandbox; one whose destroy() hangs (a hole an attack found) is left after 30 s. */
  async destroyAll(): Promise<void> {
    const sessions = [...this.open];
    this.open.clear();
    await Promise.allSettled(
      sessions.map(session =>
        Promise.race([session.destroy(), new Promise(resolve => setTimeout(resolve, 30_000).unref())]),
      ),
    );
  }
}

/** Runs a bash script on the host (outside every fence); never throws for a non-zero exit. */
export function onHost(
  script: string,
  timeoutMs = 60_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise(resolve => {
    execFile(
      '/bin/bash',
      ['-c', script],
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `text` cut to one short line, for the report. */
export function brief(text: string, max = 120): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line || '(nothing)';
}

/**
 * Files planted in the real home for the duration of a test, with unique names. Directories it had
 * to create are removed again; directories that were there are left as they were.
 */
export class HomeDecoys {
  private readonly files: string[] = [];
  private readonly createdDirs: string[] = [];

  constructor(readonly home = homedir()) {}

  async plant(relativePath: string, content: string, mode = 0o600): Promise<string> {
    const path = join(this.home, relativePath);
    const missing: string[] = [];
    for (let dir = dirname(path); !existsSync(dir); dir = dirname(dir)) missing.unshift(dir);
    for (const dir of missing) {
      mkdirSync(dir, { mode: 0o700 });
      this.createdDirs.unshift(dir);
    }
    await writeFile(path, content, { mode, flag: 'wx' });
    this.files.push(path);
    return path;
  }

  async removeAll(): Promise<void> {
    for (const file of this.files.splice(0)) await rm(file, { force: true });
    for (const dir of this.createdDirs.splice(0)) await rmdir(dir).catch(() => undefined);
  }
}

/** The host's open file descriptors (this process). */
export async function openDescriptorCount(): Promise<number> {
  return (await readdir('/proc/self/fd')).length;
}

/** Processes on the host whose environment or command line mentions `needle`, with their command. */
export async function hostProcessesMentioning(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      const [environ, cmdline] = await Promise.all([
        readFile(`/proc/${pid}/environ`, 'latin1').catch(() => ''),
        readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => ''),
      ]);
      if (environ.includes(needle) || cmdline.includes(needle))
        found.push(`${pid} ${cmdline.replace(/\0/g, ' ').slice(0, 160)}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Socket files srt leaves in the host's temp directory (its proxy bridges), by name. */
export async function srtSocketFiles(): Promise<string[]> {
  const names = await readdir('/tmp').catch(() => [] as string[]);
  return names.filter(name => /^(claude-http-.*\.sock|srt-mux-.*\.sock)$/.test(name)).sort();
}

/** Host processes whose command line includes `needle` (socat bridges of srt, say). */
export async function hostCommandLines(needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(pid)) continue;
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '');
    if (cmdline.includes(needle)) found.push(`${pid} ${cmdline.replace(/\0/g, ' ').slice(0, 200)}`);
  }
  return found;
}

/** Where an fd of this process points (for telling sockets and pipes apart in leak counts). */
export async function describeDescriptors(): Promise<string[]> {
  const fds = await readdir('/proc/self/fd');
  return Promise.all(fds.map(fd => readlink(`/proc/self/fd/${fd}`).catch(() => 'gone')));
}

/**
 * A host process of its own running `body` (an ES module body) with the package bundle imported as
 * `pkg`. It prints lines; `line(pattern)` waits for one.
 */
export interface ChildHost {
  readonly child: ChildProcess;
  readonly output: string[];
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function startChildHost(
  body: string,
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    /** Start the host with this file open, without close-on-exec, at this descriptor number. */
    inheritFile?: { fd: number; path: string };
  } = {},
): ChildHost {
  const source = `import * as pkg from ${JSON.stringify(SECURITY_BUNDLE)};\n${body}`;
  const argv = [process.execPath, '--input-type=module', '-e', source];
  // Through a shell, which can open a descriptor at any number; Node reuses the low ones itself.
  const inherit = options.inheritFile;
  const [file, ...args] = inherit
    ? ['/bin/bash', '-c', `exec ${inherit.fd}<"$0"; exec "$@"`, inherit.path, ...argv]
    : argv;
  const child = spawn(file!, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const waiters: Array<() => void> = [];
  const wake = () => waiters.splice(0).forEach(waiter => waiter());
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on('line', line => {
      output.push(line);
      wake();
    });
  }
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(resolve =>
    child.once('exit', (code, signal) => {
      resolve({ code, signal });
      wake();
    }),
  );
  let done = false;
  void exit.then(() => (done = true));
  return {
    child,
    output,
    exited: () => exit,
    async line(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = output.find(line => pattern.test(line));
        if (found !== undefined) return found;
        if (done)
          throw new Error(
            `the child host exited without printing ${pattern}: ${output.join('\n').slice(-2000)}`,
          );
        if (Date.now() > deadline)
          throw new Error(`no line ${pattern} from the child host: ${output.join('\n').slice(-2000)}`);
        await new Promise<void>(resolve => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
    },
  };
}
