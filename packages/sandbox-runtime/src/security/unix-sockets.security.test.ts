// Unix sockets: with srt's seccomp filter a process cannot make one; without it
// (allowAllUnixSockets), the sockets that drive the host stay hidden. srt's runtime settings are
// per process, so the second case runs in a host process of its own.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import { securityCategory } from './record.js';
import { brief, marker, SandboxPool, scratchDirectory, startChildHost } from './support.js';

const { attack } = securityCategory('unix-sockets');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
const secret = marker('socket-secret');
const servers: Server[] = [];
/** What this test created outside its scratch directory, removed at the end. */
const created: string[] = [];

async function listenAt(path: string): Promise<void> {
  const server = createServer(socket => socket.end(`${secret}\n`));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(path, resolve));
  servers.push(server);
}

/** A listening socket at `path` when nothing is there; its directory too when missing. */
async function plantSocket(path: string): Promise<boolean> {
  if (existsSync(path)) return false;
  const dir = join(path, '..');
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    created.push(dir);
  } else {
    created.push(path);
  }
  await listenAt(path);
  return true;
}

const connectScript = (paths: string[]) => `/usr/bin/python3 - <<'PY'
import socket
for path in ${JSON.stringify(paths)}:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    except OSError as e:
        print('socket-refused', path, e.strerror); continue
    try:
        s.settimeout(3); s.connect(path); print('CONNECTED', path, s.recv(100))
    except OSError as e:
        print('refused', path, e.strerror)
PY`;

beforeAll(async () => {
  scratch = await scratchDirectory('sockets');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
});
afterAll(async () => {
  await pool.destroyAll();
  await Promise.all(servers.map(server => new Promise(resolve => server.close(resolve))));
  for (const path of created.reverse()) rmSync(path, { recursive: true, force: true });
  await scratch.remove();
});

attack(
  'make a Unix socket and connect to a host socket (seccomp filter on)',
  'refused: socket(AF_UNIX) fails',
  async () => {
    const visible = join(scratch.path, 'visible.sock');
    await listenAt(visible);
    const session = await pool.create();
    // The other: srt's own proxy socket, bound into every sandbox.
    const result = await session.run({
      command: `${connectScript([visible])}\nfor s in /tmp/claude-http-*.sock; do socat -u UNIX-CONNECT:$s - </dev/null 2>&1 | head -1; done`,
    });
    const output = `${result.stdout}${result.stderr}`;
    expect(output).not.toContain('CONNECTED');
    expect(output).not.toContain(secret);
    expect(output).toContain('socket-refused');
    return brief(output);
  },
);

attack(
  "reach the D-Bus, Docker and a denyRead'd service socket with allowAllUnixSockets (child host)",
  'refused: hidden by the fence',
  async () => {
    const hidden = join(scratch.path, 'services');
    mkdirSync(hidden);
    const inDenied = join(hidden, 'service.sock');
    await listenAt(inDenied);
    const bare = join(scratch.path, 'bare.sock');
    await listenAt(bare);
    const candidates = ['/run/dbus/system_bus_socket', '/run/docker.sock', '/run/user/0/bus'];
    const planted: string[] = [];
    for (const path of candidates) if (await plantSocket(path)) planted.push(path);
    const targets = [...planted, inDenied, bare];
    const directory = join(scratch.path, 'child-sandboxes');
    const host = startChildHost(
      `const s = await pkg.createSrtNetworkSandboxSession({
         directory: ${JSON.stringify(directory)},
         runtime: { allowAllUnixSockets: true },
         denyRead: ${JSON.stringify([hidden, bare])},
       });
       const r = await s.run({ command: ${JSON.stringify(connectScript([...targets, join(scratch.path, 'visible.sock')]))} });
       console.log('OUT ' + JSON.stringify(r.stdout + r.stderr));
       await s.destroy();
       process.exit(0);`,
    );
    const line = await host.line(/^OUT /);
    await host.exited();
    const output = JSON.parse(line.slice(4)) as string;
    const connected = output.split('\n').filter(l => l.startsWith('CONNECTED'));
    // The one socket left visible on purpose shows the filter is really off in that host.
    expect(connected.map(l => l.split(' ')[1])).toEqual([join(scratch.path, 'visible.sock')]);
    return `${targets.length} hidden sockets refused (${planted.join(', ') || 'no system paths free'}); a visible one connects`;
  },
);
