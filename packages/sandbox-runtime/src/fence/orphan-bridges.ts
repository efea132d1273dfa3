import { readdir, readFile, unlink } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';

/*
 * srt bridges its proxy to the sandboxes with a socat on the host,
 *   socat UNIX-LISTEN:<tmp>/claude-http-<hex>.sock,fork,… TCP:localhost:<proxy port>,…
 * which does not die with a host process that is SIGKILLed: it lingers, still listening, so its
 * socket file is never found dead either. A bridge whose proxy port refuses connections leads
 * nowhere (the proxy lived in the dead process), so it is ended and its socket removed. A port some
 * other program took since answers, and keeps the bridge: the safe side.
 */

const BRIDGE = /^UNIX-LISTEN:(.*\/claude-http-[0-9a-f]+\.sock),/;
const TARGET = /^TCP:localhost:(\d+),/;

export interface OrphanBridgeDeps {
  /** Pid → argv of the processes of this host. */
  processes(): Promise<Map<number, string[]>>;
  refuses(port: number): Promise<boolean>;
  kill(pid: number): void;
  unlink(path: string): Promise<void>;
}

async function processes(): Promise<Map<number, string[]>> {
  const found = new Map<number, string[]>();
  const entries = await readdir('/proc').catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter(entry => /^\d+$/.test(entry))
      .map(async entry => {
        const cmdline = await readFile(`/proc/${entry}/cmdline`, 'latin1').catch(() => '');
        if (cmdline) found.set(Number(entry), cmdline.split('\0').filter(Boolean));
      }),
  );
  return found;
}

/** Only a refusal says nobody listens; a timeout or any other error keeps the bridge. */
function refuses(port: number): Promise<boolean> {
  return new Promise(resolve => {
    const socket = connect({ port, host: '127.0.0.1' });
    const done = (refused: boolean) => {
      socket.destroy();
      resolve(refused);
    };
    socket.once('connect', () => done(false));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED'));
    socket.setTimeout(1000, () => done(false));
  });
}

const realDeps: OrphanBridgeDeps = {
  processes,
  refuses,
  kill: pid => process.kill(pid, 'SIGKILL'),
  unlink: path => unlink(path),
};

/** Ends srt's socat bridges in `dir` whose proxy is gone; returns their socket paths. Never throws. */
export async function endOrphanBridges(dir: string, deps: OrphanBridgeDeps = realDeps): Promise<string[]> {
  const ended: string[] = [];
  try {
    for (const [pid, argv] of await deps.processes()) {
      if (!argv[0]?.endsWith('socat') || argv.length < 3) continue;
      const socket = BRIDGE.exec(argv[1]!)?.[1];
      const port = TARGET.exec(argv[2]!)?.[1];
      if (!socket || !port || socket !== join(dir, socket.slice(socket.lastIndexOf('/') + 1))) continue;
      if (!(await deps.refuses(Number(port)))) continue;
      try {
        deps.kill(pid);
      } catch {
        continue; // gone meanwhile, or not ours to end
      }
      await deps.unlink(socket).catch(() => undefined);
      ended.push(socket);
    }
  } catch {
    // Best effort: a host we cannot inspect keeps its bridges.
  }
  return ended;
}
