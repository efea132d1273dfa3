import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { tempDir } from './fence-test-support.js';
import { isListening, removeStaleSrtSockets } from './stale-sockets.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => new Promise(resolve => server.close(resolve))));
});

/** A socket file nobody listens on, as a SIGKILLed process leaves it. */
async function deadSocket(path: string): Promise<void> {
  const script = `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`;
  spawnSync(process.execPath, ['-e', script]);
  if (!existsSync(path)) throw new Error(`no socket left at ${path}`);
}

async function liveSocket(path: string): Promise<void> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>(resolve => server.listen(path, resolve));
}

describe('removeStaleSrtSockets', () => {
  it("removes a dead process's mux socket and an old bridge socket nobody listens on", async () => {
    const dir = await tempDir();
    try {
      const deadMux = join(dir.path, 'srt-mux-999999-0.sock');
      const liveMux = join(dir.path, `srt-mux-${process.pid}-0.sock`);
      const deadBridge = join(dir.path, 'claude-http-00ff.sock');
      const liveBridge = join(dir.path, 'claude-http-11ee.sock');
      const notOurs = join(dir.path, 'claude-http-22dd.sock');
      await deadSocket(deadMux);
      await deadSocket(liveMux);
      await deadSocket(deadBridge);
      await liveSocket(liveBridge);
      writeFileSync(notOurs, 'a regular file');
      const now = Date.now() + 120_000;
      const removed = await removeStaleSrtSockets(dir.path, {
        isAlive: pid => pid === process.pid,
        isListening: async path => path === liveBridge,
        now: () => now,
      });
      expect(removed.sort()).toEqual([deadBridge, deadMux].sort());
      expect(existsSync(liveMux) && existsSync(liveBridge) && existsSync(notOurs)).toBe(true);
    } finally {
      await dir.remove();
    }
  });

  it('keeps a young bridge socket, which may be between bind and listen', async () => {
    const dir = await tempDir();
    try {
      const young = join(dir.path, 'claude-http-abcd.sock');
      await deadSocket(young);
      expect(await removeStaleSrtSockets(dir.path)).toEqual([]);
      expect(existsSync(young)).toBe(true);
    } finally {
      await dir.remove();
    }
  });

  it('tells a refused socket from a listening one by connecting', async () => {
    const dir = await tempDir();
    try {
      const dead = join(dir.path, 'dead.sock');
      const live = join(dir.path, 'live.sock');
      await deadSocket(dead);
      await liveSocket(live);
      expect(await isListening(dead)).toBe(false);
      expect(await isListening(live)).toBe(true);
    } finally {
      await dir.remove();
    }
  });
});
