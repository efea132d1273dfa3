import { lstat, readdir, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { endOrphanBridges } from './orphan-bridges.js';

/*
 * srt leaves its sockets in the temp directory when its process is killed (SIGKILL skips every
 * handler): the HTTP proxy backend `srt-mux-<pid>-<n>.sock` and the socat bridge
 * `claude-http-<hex>.sock`. Removed at the next start when they are provably dead: a mux socket
 * whose pid is gone; a bridge socket nobody listens on that is more than a minute old (a socket
 * another process has just bound but not yet listened on is young).
 */

const MUX = /^srt-mux-(\d+)-\d+\.sock$/;
const BRIDGE = /^claude-http-[0-9a-f]+\.sock$/;
const BRIDGE_MIN_AGE_MS = 60_000;

export interface StaleSocketDeps {
  isAlive(pid: number): boolean;
  isListening(path: string): Promise<boolean>;
  now(): number;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, it is someone else's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether something accepts connections on the socket at `path` (only a refusal says no). */
export function isListening(path: string): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect({ path });
    const done = (listening: boolean) => {
      socket.destroy();
      resolve(listening);
    };
    socket.once('connect', () => done(true));
    // Only a refusal proves nobody listens; anything else keeps the file.
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code !== 'ECONNREFUSED'));
    socket.setTimeout(1000, () => done(true));
  });
}

const realDeps: StaleSocketDeps = { isAlive, isListening, now: () => Date.now() };

/** Removes srt's dead sockets from `dir`; returns the paths removed. Never throws. */
export async function removeStaleSrtSockets(
  dir: string = tmpdir(),
  deps: StaleSocketDeps = realDeps,
): Promise<string[]> {
  // Bridges a killed host left running still listen: end those first (their sockets go with them).
  const removed: string[] = deps === realDeps ? await endOrphanBridges(dir) : [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  await Promise.all(
    names.map(async name => {
      const mux = MUX.exec(name);
      if (!mux && !BRIDGE.test(name)) return;
      const path = join(dir, name);
      if (removed.includes(path)) return;
      try {
        const stat = await lstat(path);
        if (!stat.isSocket()) return;
        if (mux) {
          if (deps.isAlive(Number(mux[1]))) return;
        } else if (deps.now() - stat.mtimeMs < BRIDGE_MIN_AGE_MS || (await deps.isListening(path))) {
          return;
        }
        await unlink(path);
        removed.push(path);
      } catch {
        // Gone meanwhile, or not ours to remove.
      }
    }),
  );
  return removed;
}
