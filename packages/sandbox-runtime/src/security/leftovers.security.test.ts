// Leaving something running: processes the agent detaches (background jobs, setsid daemons whose
// shell exited) must end with stop(), destroy(), killAllProcesses(), and when the host itself is
// SIGKILLed; srt's helpers on the host (socat, socket files) must not pile up either.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { securityCategory } from './record.js';
import { brief, hostCommandLines, marker, SandboxPool, scratchDirectory, startChildHost } from './support.js';

const { attack } = securityCategory('leftovers');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;

beforeAll(async () => {
  scratch = await scratchDirectory('leftovers');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
});
afterAll(async () => {
  await pool.destroyAll();
  await scratch.remove();
});

/**
 * Starts processes meant to outlive their shell, each named `name` (argv[0]): a background job, a
 * setsid daemon, and one that also dropped its environment (and so the sandbox's process tag).
 */
const detach = (name: string) =>
  [
    `(exec -a ${name} sleep 1000) &`,
    `setsid bash -c 'exec -a ${name} sleep 1000' </dev/null >/dev/null 2>&1 &`,
    `setsid env -i bash -c '(exec -a ${name} sleep 1000) & exit' </dev/null >/dev/null 2>&1 &`,
    `nohup bash -c 'trap "" TERM HUP; exec -a ${name} sleep 1000' >/dev/null 2>&1 &`,
    'sleep 0.3; echo started',
  ].join('\n');

/** Host processes still carrying `name`, after giving them `ms` to go. */
async function survivors(name: string, ms = 8_000): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await hostCommandLines(name);
    if (found.length === 0 || Date.now() > deadline) return found;
    await new Promise(resolve => setTimeout(resolve, 200));
  }
}

async function startDetached(session: SrtNetworkSandboxSession, name: string): Promise<number> {
  const result = await session.run({ command: detach(name) });
  expect(result.stdout).toContain('started');
  const running = await hostCommandLines(name);
  expect(running.length).toBeGreaterThanOrEqual(4);
  return running.length;
}

for (const [ending, end] of [
  ['stop()', (session: SrtNetworkSandboxSession) => session.stop()],
  ['destroy()', (session: SrtNetworkSandboxSession) => session.destroy()],
  [
    'killAllProcesses()',
    (session: SrtNetworkSandboxSession) => session.killAllProcesses().then(() => undefined),
  ],
] as const) {
  attack(
    `leave background, setsid and env-less daemons running past ${ending}`,
    'none survives',
    async () => {
      const name = marker('leftover');
      const session = await pool.create();
      const started = await startDetached(session, name);
      await end(session);
      const left = await survivors(name);
      expect(left, `survivors: ${left.join('; ')}`).toEqual([]);
      if (ending === 'killAllProcesses()') {
        // The sandbox itself keeps running.
        expect((await session.run({ command: 'echo ok' })).stdout).toBe('ok\n');
      }
      return `${started} started, 0 left`;
    },
    60_000,
  );
}

/** The host-side helpers a child host process runs: srt's socat bridges and its socket files. */
async function helpersOf(pid: number): Promise<{ socats: number[]; sockets: string[] }> {
  const socats: number[] = [];
  const sockets = new Set<string>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid !== pid) continue;
    const cmdline = (await readFile(`/proc/${entry}/cmdline`, 'latin1').catch(() => '')).split('\0');
    if (!cmdline[0]?.endsWith('socat')) continue;
    socats.push(Number(entry));
    for (const word of cmdline) {
      const socket = /UNIX-LISTEN:([^,]+)/.exec(word)?.[1];
      if (socket) sockets.add(socket);
    }
  }
  for (const name of await readdir('/tmp'))
    if (name.startsWith(`srt-mux-${pid}-`)) sockets.add(join('/tmp', name));
  return { socats, sockets: [...sockets] };
}

/** Whether `pid` runs (a zombie, killed but not yet reaped by its new parent, does not). */
const alive = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
};

attack(
  'SIGKILL the host process while its sandbox runs detached daemons',
  "nothing of the sandbox survives; srt's host helpers end; its sockets are removed by the next host",
  async () => {
    const name = marker('orphan');
    const directory = join(scratch.path, 'killed-host');
    const host = startChildHost(
      `const s = await pkg.createSrtNetworkSandboxSession({ directory: ${JSON.stringify(directory)} });
       await s.run({ command: ${JSON.stringify(detach(name))} });
       console.log('READY');
       setInterval(() => undefined, 1000);`,
    );
    await host.line(/^READY$/);
    const pid = host.child.pid!;
    const helpers = await helpersOf(pid);
    expect(helpers.socats.length).toBeGreaterThan(0);
    expect((await hostCommandLines(name)).length).toBeGreaterThanOrEqual(4);
    host.child.kill('SIGKILL');
    await host.exited();

    const left = await survivors(name);
    const bwraps = await survivors(directory, 5_000);
    const socats = [];
    for (const socat of helpers.socats) if (await alive(socat)) socats.push(socat);
    const { existsSync } = await import('node:fs');
    const socketsAfterKill = helpers.sockets.filter(socket => existsSync(socket));

    // The next host of this machine removes what the dead one left.
    const next = startChildHost(
      `const s = await pkg.createSrtNetworkSandboxSession({ directory: ${JSON.stringify(join(scratch.path, 'next-host'))} });
       await s.destroy();
       console.log('DONE');
       process.exit(0);`,
    );
    await next.line(/^DONE$/);
    await next.exited();
    const socketsAfterNext = helpers.sockets.filter(socket => existsSync(socket));
    const socatsAfterNext = [];
    for (const socat of socats) if (await alive(socat)) socatsAfterNext.push(socat);
    for (const socat of socatsAfterNext) process.kill(socat, 'SIGKILL');

    expect(left, 'sandbox processes that outlived the host').toEqual([]);
    expect(bwraps, 'bwrap of the dead host').toEqual([]);
    // srt's socat bridge is srt's own child: nothing ends it when its host is SIGKILLed, so the
    // next host of the machine does, with the socket files.
    expect(socatsAfterNext, "srt's socat bridges the next host left running").toEqual([]);
    expect(socketsAfterNext, 'socket files the next host left in place').toEqual([]);
    return (
      `0 sandbox processes left; srt's host socat (${socats.length}) and ${socketsAfterKill.length} socket files ` +
      'outlived the kill, and were ended and removed by the next host start'
    );
  },
  90_000,
);

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  attack(
    `send ${signal} to a host that used a sandbox`,
    'the host exits, and its sandbox with it',
    async () => {
      const name = marker('signalled');
      const host = startChildHost(
        `const s = await pkg.createSrtNetworkSandboxSession({ directory: ${JSON.stringify(join(scratch.path, `signal-${signal}`))} });
       await s.run({ command: ${JSON.stringify(detach(name))} });
       console.log('READY');
       setInterval(() => undefined, 1000);`,
      );
      await host.line(/^READY$/);
      host.child.kill(signal);
      const timeout = new Promise<'hung'>(resolve => setTimeout(() => resolve('hung'), 20_000));
      const exit = await Promise.race([host.exited(), timeout]);
      if (exit === 'hung') host.child.kill('SIGKILL');
      expect(exit, `the host did not exit on ${signal}`).not.toBe('hung');
      expect(await survivors(name)).toEqual([]);
      const { code, signal: bySignal } = exit as { code: number | null; signal: NodeJS.Signals | null };
      return `exited (${code ?? bySignal}); 0 processes left`;
    },
  );
}

attack(
  'keep a process alive by ignoring SIGTERM (trap "" TERM) through stop()',
  'SIGKILL after the grace period',
  async () => {
    const name = marker('stubborn');
    const session = await pool.create();
    await session.run({ command: `bash -c 'trap "" TERM INT HUP; exec -a ${name} sleep 1000' & sleep 0.2` });
    expect((await hostCommandLines(name)).length).toBe(1);
    await session.stop();
    expect(await survivors(name)).toEqual([]);
    return brief('ended');
  },
);
