// The CLI's commands called in this process against real srt sandboxes, their output captured.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSrtNetworkSandboxSession } from '../index.js';
import { captureIo } from './cli-test-support.js';
import { doctorCommand } from './doctor-command.js';
import { listCommand } from './list-command.js';
import { rmCommand } from './rm-command.js';
import { runCli } from './run-cli.js';
import { runCommand } from './run-command.js';
import { shellCommand } from './shell-command.js';

let root: string;
let directory: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'srt-cli-'));
  directory = join(root, 'sandboxes');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('doctor', () => {
  it('passes every check on this host, the real sandbox included, and exits 0', async () => {
    const io = captureIo();
    const code = await doctorCommand([], io);
    expect(code, io.out()).toBe(0);
    for (const name of ['node', 'platform', 'bwrap', 'socat', 'rg', 'user namespaces', 'sandbox']) {
      expect(io.out()).toMatch(new RegExp(`✓\\s+${name}\\s`));
    }
    expect(io.out()).not.toContain('✗');
    expect(io.out()).toContain('This host can run sandboxes.');
  });
});

describe('run', () => {
  it("exits with the command's exit code, its output streamed to ours", async () => {
    const io = captureIo();
    const code = await runCommand(
      ['--directory', directory, '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'],
      io,
    );
    expect(code).toBe(3);
    expect(io.out()).toBe('out\n');
    expect(io.err()).toContain('err\n');
  });

  it('cannot read a file of the real home directory', async () => {
    const secret = randomBytes(8).toString('hex');
    const file = join(homedir(), `.srt-cli-test-${secret}`);
    await writeFile(file, secret);
    try {
      const io = captureIo();
      const code = await runCommand(['--directory', directory, '--', 'cat', file], io);
      expect(code).not.toBe(0);
      expect(io.out()).not.toContain(secret);
      expect(io.err()).toContain('No such file or directory');
    } finally {
      await rm(file, { force: true });
    }
  });

  it('works on --workspace, read-write', async () => {
    const workspace = join(root, 'workspace-touch');
    mkdirSync(workspace);
    const io = captureIo();
    expect(
      await runCommand(['--directory', directory, '--workspace', workspace, '--', 'touch', 'f'], io),
    ).toBe(0);
    expect(existsSync(join(workspace, 'f'))).toBe(true);
  });

  it('removes the sandbox it created, unless --keep', async () => {
    const own = join(root, 'own-sandboxes');
    expect(await runCommand(['--directory', own, '--', 'true'], captureIo())).toBe(0);
    const list = captureIo();
    await listCommand(['--directory', own, '--json'], list);
    expect(JSON.parse(list.out()).sandboxes).toEqual([]);
  });

  it('refuses arguments it does not know, with exit code 2', async () => {
    const io = captureIo();
    expect(await runCli(['run', '--bogus', '--', 'true'], io)).toBe(2);
    expect(io.err()).toContain("Unknown option '--bogus'");
    expect(await runCli(['run', '--directory', directory], captureIo())).toBe(2);
  });
});

describe('shell', () => {
  it('runs each line in the same sandbox, remembers cd, and exits with the last status', async () => {
    const io = captureIo({
      stdin: ['cd /etc\n', 'pwd\n', 'export A=1\n', 'echo "A=$A"\n', 'sh -c "exit 4"\n'],
    });
    const code = await shellCommand(['--directory', directory], io);
    expect(code).toBe(4);
    // Each line is a `bash -c` of its own, as an agent's commands are: only the directory carries over.
    expect(io.out()).toBe('/etc\nA=\n');
  });

  it('stops at exit, with its code', async () => {
    const io = captureIo({ stdin: ['echo one\n', 'exit 7\n', 'echo never\n'] });
    expect(await shellCommand(['--directory', directory], io)).toBe(7);
    expect(io.out()).toBe('one\n');
  });
});

describe('list and rm', () => {
  it('lists a kept sandbox with its size and workspace, and rm removes it but not its workspace', async () => {
    const workspace = join(root, 'workspace-kept');
    mkdirSync(workspace);
    const kept = captureIo();
    const code = await runCommand(
      [
        '--directory',
        directory,
        '--sandbox-id',
        'kept',
        '--keep',
        '--workspace',
        workspace,
        '--',
        'sh',
        '-c',
        // Two megabytes in the sandbox's own home, one file in the workspace.
        'head -c 2000000 /dev/urandom > "$HOME/blob" && echo mine > notes.txt',
      ],
      kept,
    );
    expect(code, kept.err()).toBe(0);
    expect(kept.err()).toContain('Kept sandbox kept');

    const json = captureIo();
    await listCommand(['--directory', directory, '--json'], json);
    const entry = (
      JSON.parse(json.out()) as {
        sandboxes: { id: string; size: number; workspace: string; running: boolean }[];
      }
    ).sandboxes.find(sandbox => sandbox.id === 'kept');
    expect(entry).toMatchObject({ workspace, running: false });
    expect(entry!.size).toBeGreaterThanOrEqual(2_000_000);
    expect(entry!.size).toBeLessThan(3_000_000);

    const table = captureIo();
    await listCommand(['--directory', directory], table);
    expect(table.out()).toMatch(/SANDBOX\s+SIZE\s+LAST USED\s+STATE\s+WORKSPACE/);
    expect(table.out()).toMatch(
      new RegExp(`kept\\s+\\d\\.\\d MB\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+stopped\\s+${workspace}`),
    );

    const removed = captureIo();
    expect(await rmCommand(['--directory', directory, 'kept'], removed)).toBe(0);
    expect(removed.out()).toContain('Removed kept.');
    expect(existsSync(join(directory, 'kept'))).toBe(false);
    expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('leaves a sandbox a live process runs, unless --force', async () => {
    const session = await createSrtNetworkSandboxSession({ directory, sandboxId: 'live' });
    try {
      const list = captureIo();
      await listCommand(['--directory', directory], list);
      expect(list.out()).toMatch(new RegExp(`live\\s.*running \\(pid ${process.pid}\\)`));

      const refused = captureIo();
      expect(await rmCommand(['--directory', directory, 'live'], refused)).toBe(1);
      expect(refused.err()).toContain(`live is in use by process ${process.pid}`);
      expect(existsSync(join(directory, 'live', 'sandbox.json'))).toBe(true);

      expect(await rmCommand(['--directory', directory, '--all', '--force'], captureIo())).toBe(0);
      expect(existsSync(join(directory, 'live'))).toBe(false);
    } finally {
      await session.destroy();
    }
  });

  it('refuses an id that is not a sandbox name, and says which are missing', async () => {
    const io = captureIo();
    expect(await runCli(['rm', '--directory', directory, '../sandboxes'], io)).toBe(2);
    expect(io.err()).toContain('Invalid sandboxId');
    const missing = captureIo();
    expect(await runCli(['rm', '--directory', directory, 'absent'], missing)).toBe(1);
    expect(missing.err()).toContain('no sandbox named absent');
  });
});
