// srt's seccomp filter against Unix sockets, and the escape hatch for hosts that cannot run it.
// This file restarts the process's srt with other runtime settings.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SrtError } from '../srt-error.js';
import { runFenced, tempDir } from './fence-test-support.js';
import { sandboxLayout, type SandboxLayout } from './layout.js';
import { srtRuntime } from './srt-runtime.js';

const listenOnUnixSocket = `node -e "require('net').createServer().on('error', e => { console.log(e.code); process.exit(0) }).listen('/tmp/s.sock', () => { console.log('listening'); process.exit(0) })"`;
const connectTo = (path: string) =>
  `node -e "require('net').connect('${path}').on('connect', () => { console.log('connected'); process.exit(0) }).on('error', e => { console.log(e.code); process.exit(0) })"`;

let root: Awaited<ReturnType<typeof tempDir>>;
let layout: SandboxLayout;

beforeAll(async () => {
  root = await tempDir();
  layout = sandboxLayout('sockets', root.path);
});
afterAll(async () => {
  await srtRuntime().reset();
  await root.remove();
});

describe('unix sockets', () => {
  it('are refused by default', async () => {
    const result = await runFenced({ layout }, listenOnUnixSocket);
    expect(result.stdout.trim()).toBe('EPERM');
  });

  it('refuses a second sandbox asking for other runtime settings, naming the setting', async () => {
    const attempt = runFenced({ layout, runtime: { allowAllUnixSockets: true } }, 'true');
    await expect(attempt).rejects.toSatisfy(
      (error: unknown) =>
        error instanceof SrtError &&
        error.reason === 'runtime-conflict' &&
        /allowAllUnixSockets/.test(error.message),
    );
  });

  describe('with allowAllUnixSockets', () => {
    // A stand-in for Podman's socket, so the test does not depend on what the host runs.
    const dir = '/run/podman';
    const socket = `${dir}/podman.sock`;
    let server: Server | undefined;

    beforeAll(async () => {
      await srtRuntime().reset();
      if (existsSync(dir)) return;
      mkdirSync(dir);
      server = createServer(connection => connection.end());
      await new Promise<void>(resolve => server!.listen(socket, resolve));
    });
    afterAll(async () => {
      if (!server) return;
      await new Promise(resolve => server!.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    });

    it("work, while the host's service sockets stay hidden", async ({ skip }) => {
      if (!server) skip(`${dir} exists on this host`);
      const result = await runFenced(
        { layout, runtime: { allowAllUnixSockets: true } },
        `${listenOnUnixSocket}; ${connectTo(socket)}; ls -A /run/dbus | wc -l`,
      );
      expect(result.stdout.trim().split('\n')).toEqual(['listening', 'ENOENT', '0']);
      expect(srtRuntime().settings?.allowAllUnixSockets).toBe(true);
      // The same socket is reachable from the host: the fence is what hides it.
      const fromHost = await new Promise(resolve => {
        const client = connect(socket);
        client.on('connect', () => {
          client.destroy();
          resolve('connected');
        });
        client.on('error', (error: NodeJS.ErrnoException) => resolve(error.code));
      });
      expect(fromHost).toBe('connected');
    });
  });
});
