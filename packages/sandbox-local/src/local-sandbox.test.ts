import { HarnessCapabilityUnsupportedError } from '@ai-sdk/harness';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalNetworkSandboxSession,
  createLocalSandboxProvider,
  resumeLocalNetworkSandboxSession,
  SandboxConflictError,
  SandboxNotFoundError,
  SandboxOptionsError,
  SandboxStateError,
  SandboxStoppedError,
} from './index.js';

const run = promisify(execFile);
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'local-sandbox-test-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for every purpose but its entry in the process table.
  return !/^\d+ \(.*\) Z/.test(readProcStat(pid));
}

function readProcStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

describe('local sandbox lifecycle', () => {
  it('stop() ends a double-forked daemon in a new session, and waits until it is gone', async () => {
    const session = await createLocalNetworkSandboxSession({ directory });
    // The daemon's parent exits at once and it calls setsid: it is in no process group of ours.
    await session.run({
      command: `setsid bash -c 'sleep 1000 & echo $! > daemon.pid; trap "" TERM; wait' >/dev/null 2>&1 < /dev/null &`,
    });
    let pid = 0;
    for (let attempt = 0; attempt < 100 && !pid; attempt++) {
      pid = Number((await session.readTextFile({ path: 'daemon.pid' }))?.trim() ?? 0);
      if (!pid) await new Promise(resolve => setTimeout(resolve, 20));
    }
    expect(alive(pid)).toBe(true);
    await session.stop();
    expect(alive(pid)).toBe(false);
    await session.destroy();
  });

  it('destroy() removes its own directory but never a workspace it was given', async () => {
    const workspace = await mkdtemp(join(tmpdir(), 'local-workspace-'));
    const session = await createLocalNetworkSandboxSession({ directory, workspace });
    await session.writeTextFile({ path: 'kept.txt', content: 'mine' });
    await session.destroy();
    await session.destroy(); // idempotent
    expect(existsSync(join(directory, session.id))).toBe(false);
    expect(await readFile(join(workspace, 'kept.txt'), 'utf8')).toBe('mine');
    await expect(session.run({ command: 'true' })).rejects.toBeInstanceOf(SandboxStoppedError);
    await rm(workspace, { recursive: true });
  });

  it('refuses to create a sandbox whose id exists, and resumes it instead', async () => {
    const sandboxId = `named-${Date.now()}`;
    const first = await createLocalNetworkSandboxSession({ directory, sandboxId });
    await first.writeTextFile({ path: 'state.txt', content: 'before' });
    await expect(createLocalNetworkSandboxSession({ directory, sandboxId })).rejects.toBeInstanceOf(
      SandboxConflictError,
    );
    await first.stop();
    const again = await resumeLocalNetworkSandboxSession({ directory, sandboxId });
    expect(await again.readTextFile({ path: 'state.txt' })).toBe('before');
    await again.destroy();
  });

  it('is found again from another process, with its files', async () => {
    const sandboxId = `cross-process-${Date.now()}`;
    const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
    const script = `
      import { createLocalNetworkSandboxSession } from ${JSON.stringify(built)};
      const session = await createLocalNetworkSandboxSession(${JSON.stringify({ directory, sandboxId })});
      await session.run({ command: 'echo from-the-other-process > note.txt' });
      await session.stop();`;
    await run(process.execPath, ['--input-type=module', '-e', script]);
    const session = await resumeLocalNetworkSandboxSession({ directory, sandboxId });
    expect(await session.readTextFile({ path: 'note.txt' })).toBe('from-the-other-process\n');
    await session.destroy();
  });

  it('says clearly when there is nothing to resume, or its record is damaged', async () => {
    await expect(
      resumeLocalNetworkSandboxSession({ directory, sandboxId: 'never-made' }),
    ).rejects.toBeInstanceOf(SandboxNotFoundError);
    const session = await createLocalNetworkSandboxSession({ directory, sandboxId: `damaged-${Date.now()}` });
    await session.stop();
    await writeFile(join(directory, session.id, 'sandbox.json'), '{ "version": 1, ');
    const error = await resumeLocalNetworkSandboxSession({ directory, sandboxId: session.id }).catch(e => e);
    expect(error).toBeInstanceOf(SandboxStateError);
    expect(error.message).toContain('sandbox.json');
    await session.destroy();
  });

  it.each([
    [{ sandboxId: '../escape' }, 'sandboxId'],
    [{ sandboxId: '' }, 'sandboxId'],
    [{ sandboxId: 'x'.repeat(129) }, 'sandboxId'],
    [{ sandboxId: 'bad\nid' }, 'sandboxId'],
    [{ portCount: 3.5 }, 'portCount'],
    [{ workspace: 'relative/path' }, 'workspace'],
    [{ env: { OK: 1 } }, 'env'],
  ])('rejects bad options %j with an error naming %s', async (options, name) => {
    const error = await createLocalNetworkSandboxSession({ directory, ...(options as object) }).catch(e => e);
    expect(error).toBeInstanceOf(SandboxOptionsError);
    expect(error.message).toContain(name);
  });
});

describe('local sandbox ports', () => {
  it('leases distinct free ports to live sessions, reachable on the loopback', async () => {
    const sessions = await Promise.all(
      [1, 2, 3].map(() => createLocalNetworkSandboxSession({ directory, portCount: 2 })),
    );
    try {
      const ports = sessions.flatMap(session => session.ports);
      expect(new Set(ports).size).toBe(6);
      const [first] = sessions;
      const port = first!.ports[0]!;
      const server = await first!.spawn({
        command: `exec node -e "require('http').createServer((q, s) => s.end('served')).listen(${port}, '127.0.0.1', () => console.log('up'))"`,
      });
      await server.stdout.getReader().read();
      const { url } = await first!.getPortEndpoint({ port });
      expect(await (await fetch(url)).text()).toBe('served');
      expect(await first!.getPortUrl({ port, protocol: 'ws' })).toBe(`ws://127.0.0.1:${port}`);
      const unexposed = await Promise.resolve(first!.getPortEndpoint({ port: 1 })).catch(
        (e: unknown) => e as any,
      );
      expect(HarnessCapabilityUnsupportedError.isInstance(unexposed)).toBe(true);
    } finally {
      await Promise.all(sessions.map(session => session.destroy()));
    }
  });

  it('leaves out the capabilities it cannot honour', async () => {
    const session = await createLocalNetworkSandboxSession({ directory });
    for (const member of [
      'setNetworkPolicy',
      'addRequestTransformations',
      'setRequestTransformations',
      'setPorts',
    ]) {
      expect(member in session).toBe(false);
    }
    await session.destroy();
  });
});

describe('local sandbox provider', () => {
  it('creates sessions named by the harness session id and resumes them', async () => {
    const provider = createLocalSandboxProvider({ directory });
    let prepared = 0;
    const sessionId = `provider-${Date.now()}`;
    const session = await provider.createSession({
      sessionId,
      onFirstCreate: async basic => {
        prepared++;
        await basic.writeTextFile({ path: 'prepared.txt', content: 'yes' });
      },
    });
    expect(prepared).toBe(1);
    expect(session.id).toBe(sessionId);
    await session.stop();
    const resumed = await provider.resumeSession!({ sessionId });
    expect(await resumed.readTextFile({ path: 'prepared.txt' })).toBe('yes');
    await resumed.destroy();
  });
});
