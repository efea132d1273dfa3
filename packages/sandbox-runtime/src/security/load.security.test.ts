// Load: many calls at once, huge outputs and files, many sandboxes, many lifecycles. The host must
// stay correct and bounded: no call mixed up, memory flat, nothing leaked.
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readlink } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import { createSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import { securityCategory } from './record.js';
import {
  hostCommandLines,
  openDescriptorCount,
  SandboxPool,
  scratchDirectory,
  srtSocketFiles,
} from './support.js';

const { attack } = securityCategory('load');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;

beforeAll(async () => {
  scratch = await scratchDirectory('load');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
});
afterAll(async () => {
  await pool.destroyAll();
  await scratch.remove();
});

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

/** Samples this process's RSS every 50 ms while `work` runs; returns the peak growth. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const base = process.memoryUsage().rss;
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss - base)), 50);
  try {
    return { value: await work(), growth: peak };
  } finally {
    clearInterval(timer);
  }
}

attack('200 concurrent run() calls on one sandbox', 'each gets its own output and exit code', async () => {
  const session = await pool.create();
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      session.run({ command: `echo out-${i}; echo err-${i} >&2; exit ${i % 7}` }),
    ),
  );
  results.forEach((result, i) => {
    expect(result).toEqual({ stdout: `out-${i}\n`, stderr: `err-${i}\n`, exitCode: i % 7 });
  });
  return '200/200 correct';
});

attack('a command printing 1 GiB', 'all of it arrives; host RSS stays bounded', async () => {
  const session = await pool.create();
  const { value: bytes, growth } = await peakGrowth(async () => {
    const child = await session.spawn({ command: `head -c ${GiB} /dev/zero` });
    let count = 0;
    const reader = child.stdout.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      count += value.byteLength;
    }
    expect((await child.wait()).exitCode).toBe(0);
    return count;
  });
  expect(bytes).toBe(GiB);
  expect(growth).toBeLessThan(300 * MiB);
  return `1 GiB read; host RSS grew at most ${Math.round(growth / MiB)} MiB`;
});

attack(
  'write a 1 GiB file and read it back',
  'byte-identical (sha256); host RSS bounded',
  async () => {
    const session = await pool.create();
    const chunk = 4 * MiB;
    const written = createHash('sha256');
    let sent = 0;
    const content = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= GiB) return controller.close();
        const bytes = randomBytes(chunk);
        written.update(bytes);
        sent += chunk;
        controller.enqueue(bytes);
      },
    });
    const { growth: writeGrowth } = await peakGrowth(async () =>
      session.writeFile({ path: 'big.bin', content }),
    );
    const read = createHash('sha256');
    let received = 0;
    const { growth: readGrowth } = await peakGrowth(async () => {
      const stream = await session.readFile({ path: 'big.bin' });
      const reader = stream!.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        read.update(value);
        received += value.byteLength;
      }
    });
    await session.run({ command: 'rm big.bin' });
    expect(received).toBe(GiB);
    expect(read.digest('hex')).toBe(written.digest('hex'));
    expect(Math.max(writeGrowth, readGrowth)).toBeLessThan(300 * MiB);
    return `sha256 equal; host RSS grew at most ${Math.round(Math.max(writeGrowth, readGrowth) / MiB)} MiB`;
  },
  300_000,
);

attack('10 sandboxes open in one process, used at once', 'each answers for itself', async () => {
  const sessions = await Promise.all(Array.from({ length: 10 }, () => pool.create()));
  const results = await Promise.all(
    sessions.map(async (session, i) => {
      await session.writeTextFile({ path: 'me.txt', content: `sandbox-${i}` });
      return (await session.run({ command: 'cat me.txt; ls ..' })).stdout;
    }),
  );
  results.forEach((stdout, i) => expect(stdout.startsWith(`sandbox-${i}`)).toBe(true));
  await Promise.all(sessions.map(session => session.destroy()));
  return '10/10 isolated';
});

/** TCP sockets of this process that listen (forwarded ports, say). */
async function listeningSockets(): Promise<number> {
  const inodes = new Set<string>();
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode) inodes.add(inode);
  }
  const { readFile } = await import('node:fs/promises');
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of (await readFile(table, 'utf8').catch(() => '')).split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A' && inodes.has(fields[9]!)) count += 1;
    }
  }
  return count;
}

attack(
  '100 create/destroy cycles (with a command, a file and a forwarded port each)',
  'no leak of processes, fds, ports or sockets',
  async () => {
    const directory = join(scratch.path, 'cycles');
    const cycle = async () => {
      const session = await createSrtNetworkSandboxSession({ directory, ports: [4000] });
      await session.writeTextFile({ path: 'f.txt', content: 'x' });
      await session.run({ command: 'cat f.txt' });
      await session.getPortEndpoint({ port: 4000 });
      await session.destroy();
    };
    await cycle(); // srt's own one-time state (proxy, bridge, CA) is not a leak
    const before = {
      fds: await openDescriptorCount(),
      listening: await listeningSockets(),
      bwraps: (await hostCommandLines(directory)).length,
      sockets: (await srtSocketFiles()).length,
    };
    for (let i = 0; i < 100; i++) await cycle();
    await new Promise(resolve => setTimeout(resolve, 500));
    const after = {
      fds: await openDescriptorCount(),
      listening: await listeningSockets(),
      bwraps: (await hostCommandLines(directory)).length,
      sockets: (await srtSocketFiles()).length,
    };
    // A few descriptors come and go with Node's own work; a leak per cycle would be 100 or more.
    expect(after.fds - before.fds).toBeLessThan(20);
    expect(after.listening).toBe(before.listening);
    expect(after.bwraps).toBe(0);
    expect(after.sockets - before.sockets).toBeLessThanOrEqual(0);
    expect(await readdir(directory)).toEqual([]);
    return `fds ${before.fds}→${after.fds}, listening ${before.listening}→${after.listening}, processes 0, srt sockets ${before.sockets}→${after.sockets}`;
  },
  300_000,
);
