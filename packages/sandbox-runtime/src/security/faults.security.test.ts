// Faults: the supervisor dying mid-write, a full disk, a damaged sandbox.json, two hosts racing for
// one id, a crashed host's sandbox, background jobs. Each ends in a typed error or a correct result,
// never in corrupted files or a hung call.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import {
  SandboxFileError,
  SandboxStateError,
  SandboxStoppedError,
  SupervisorLinkError,
} from '@internal/sandbox-core';
import { resumeSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import { securityCategory } from './record.js';
import { brief, marker, SandboxPool, scratchDirectory, startChildHost } from './support.js';

const { attack } = securityCategory('faults');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
const mounts: string[] = [];

beforeAll(async () => {
  scratch = await scratchDirectory('faults');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
});
afterAll(async () => {
  await pool.destroyAll();
  for (const mount of mounts) execFileSync('umount', ['-l', mount]);
  await scratch.remove();
});

const errorName = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${brief(error.message, 100)}` : String(error);

attack(
  'kill the supervisor in the middle of a host file write',
  'typed error; the old content is intact',
  async () => {
    const session = await pool.create();
    const target = join(session.defaultWorkingDirectory, 'kept.txt');
    await session.writeTextFile({ path: 'kept.txt', content: 'old content' });
    let sent = 0;
    const slow = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent++ === 4)
          void Promise.resolve(session.run({ command: 'kill -9 $PPID' })).catch(() => undefined);
        controller.enqueue(new Uint8Array(256 * 1024).fill(0x41));
        await new Promise(resolve => setTimeout(resolve, 20));
      },
    });
    const error = await Promise.resolve(session.writeFile({ path: 'kept.txt', content: slow })).catch(
      (e: unknown) => e,
    );
    expect(
      error instanceof SupervisorLinkError || error instanceof SandboxStoppedError,
      errorName(error),
    ).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('old content');
    // The supervisor died before it could remove the partial temporary file beside the target.
    const leftovers = (await readdir(session.defaultWorkingDirectory)).filter(name => name.endsWith('.tmp'));
    return `${errorName(error)}; old content intact; ${leftovers.length} partial .tmp file left beside it`;
  },
);

attack(
  'fill the disk during a write (1 MiB tmpfs workspace)',
  'SandboxFileError ENOSPC; old content intact; nothing half-written',
  async () => {
    const workspace = join(scratch.path, 'small-disk');
    await mkdir(workspace);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', workspace]);
    mounts.push(workspace);
    const session = await pool.create({ workspace });
    await session.writeTextFile({ path: 'doc.txt', content: 'old content' });
    const error = await Promise.resolve(
      session.writeBinaryFile({ path: 'doc.txt', content: new Uint8Array(3 * 1024 * 1024).fill(0x42) }),
    ).catch((e: unknown) => e);
    expect(error, errorName(error)).toBeInstanceOf(SandboxFileError);
    expect((error as SandboxFileError).code).toBe('ENOSPC');
    expect(await readFile(join(workspace, 'doc.txt'), 'utf8')).toBe('old content');
    // No half-written temporary file is left (the empty placeholders that protect settings files
    // while the sandbox runs are srt's, not the write's).
    expect((await readdir(workspace)).filter(name => name !== 'doc.txt' && name.endsWith('.tmp'))).toEqual(
      [],
    );
    // The sandbox itself is fine, and the space is back.
    await session.writeTextFile({ path: 'doc.txt', content: 'new content' });
    expect(await readFile(join(workspace, 'doc.txt'), 'utf8')).toBe('new content');
    return errorName(error);
  },
);

attack('resume a sandbox whose sandbox.json is corrupted', 'SandboxStateError naming the file', async () => {
  const sandboxId = marker('corrupt');
  const session = await pool.create({ sandboxId });
  await session.stop();
  const file = join(pool.directory, sandboxId, 'sandbox.json');
  const results: string[] = [];
  for (const content of [
    '{"version": 1, "kind": "srt", "sandb',
    '[]',
    '{"version":1,"kind":"srt","sandboxId":"x","ports":"4000"}',
    '',
  ]) {
    await writeFile(file, content);
    const error = await resumeSrtNetworkSandboxSession({ sandboxId, directory: pool.directory }).catch(
      (e: unknown) => e,
    );
    expect(error, errorName(error)).toBeInstanceOf(SandboxStateError);
    expect((error as SandboxStateError).file).toBe(file);
    expect((error as Error).message).toContain(file);
    results.push((error as Error).message.replace(file, '<file>').slice(0, 60));
  }
  return `4/4 SandboxStateError (${brief(results[0]!, 60)})`;
});

attack(
  'two host processes create the same sandboxId at once',
  'exactly one wins; the other gets SandboxConflictError',
  async () => {
    const sandboxId = marker('contested');
    const directory = join(scratch.path, 'contested');
    const go = join(scratch.path, `go-${sandboxId}`);
    const body = `
    const { existsSync } = await import('node:fs');
    while (!existsSync(${JSON.stringify(go)})) await new Promise(r => setTimeout(r, 5));
    try {
      const s = await pkg.createSrtNetworkSandboxSession({ sandboxId: ${JSON.stringify(sandboxId)}, directory: ${JSON.stringify(directory)} });
      console.log('RESULT won ' + (await s.run({ command: 'echo ok' })).stdout.trim());
      await new Promise(r => setTimeout(r, 1500));
      await s.stop();
    } catch (error) {
      console.log('RESULT ' + error.name + ' ' + (error.sandboxId ?? ''));
    }
    process.exit(0);`;
    const hosts = [startChildHost(body), startChildHost(body)];
    await new Promise(resolve => setTimeout(resolve, 1500));
    await writeFile(go, '');
    const results = (await Promise.all(hosts.map(host => host.line(/^RESULT /))))
      .map(line => line.slice(7))
      .sort();
    await Promise.all(hosts.map(host => host.exited()));
    expect(results).toEqual([`SandboxConflictError ${sandboxId}`, 'won ok']);
    expect(existsSync(join(directory, sandboxId, 'sandbox.json'))).toBe(true);
    return results.join(' / ');
  },
);

attack(
  'resume the sandbox of a host that was SIGKILLed',
  'it resumes with its files; its old processes are gone',
  async () => {
    const sandboxId = marker('crashed');
    const directory = join(scratch.path, 'crashed');
    const name = marker('old-process');
    const host = startChildHost(
      `const s = await pkg.createSrtNetworkSandboxSession({ sandboxId: ${JSON.stringify(sandboxId)}, directory: ${JSON.stringify(directory)} });
     await s.writeTextFile({ path: 'notes.txt', content: 'kept' });
     await s.run({ command: ${JSON.stringify(`(exec -a ${name} sleep 1000) & sleep 0.2`)} });
     console.log('READY');
     setInterval(() => undefined, 1000);`,
    );
    await host.line(/^READY$/);
    host.child.kill('SIGKILL');
    await host.exited();
    const resumed = await resumeSrtNetworkSandboxSession({ sandboxId, directory });
    try {
      const result = await resumed.run({ command: `cat notes.txt; echo; ps -eo args | grep -c '^${name}'` });
      expect(result.stdout).toBe('kept\n0\n');
      return 'resumed; notes.txt kept; no old process';
    } finally {
      await resumed.destroy();
    }
  },
);

attack(
  "run('server &'): a background job that keeps the shell's output open",
  'run() returns when its shell exits',
  async () => {
    const session = await pool.create();
    const started = Date.now();
    const result = await Promise.race([
      session.run({ command: 'node -e "require(\'net\').createServer().listen(4000)" & echo started' }),
      new Promise<'hung'>(resolve => setTimeout(() => resolve('hung'), 20_000)),
    ]);
    expect(result).not.toBe('hung');
    expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' });
    const listening = await session.run({
      command:
        "node -e \"require('net').connect(4000).on('connect', () => { console.log('up'); process.exit(0) })\"",
    });
    expect(listening.stdout).toBe('up\n');
    return `returned after ${Date.now() - started} ms; the server keeps running`;
  },
);

attack(
  'read a file the sandbox is rewriting in a loop',
  'every read is one whole version, never a mix',
  async () => {
    const session = await pool.create();
    const a = 'A'.repeat(512 * 1024);
    const b = 'B'.repeat(512 * 1024);
    await session.writeTextFile({ path: 'flip.txt', content: a });
    await session.writeTextFile({ path: 'a', content: a });
    await session.writeTextFile({ path: 'b', content: b });
    const flipper = session.run({
      command: `for i in $(seq 200); do printf '%s' "$(cat a)" > .t && mv .t flip.txt; printf '%s' "$(cat b)" > .t && mv .t flip.txt; done`,
    });
    const reads = await Promise.all(
      Array.from({ length: 50 }, () => session.readTextFile({ path: 'flip.txt' })),
    );
    await flipper;
    const mixed = reads.filter(text => text !== a && text !== b);
    expect(mixed.length).toBe(0);
    return '50 reads, 0 torn';
  },
);
