// Reading what the sandbox must not see: the user's home, other sandboxes, host processes, and what
// the host process itself holds open. Every attempt runs inside the sandbox, as the agent would.
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, expect } from 'vitest';

import { securityCategory } from './record.js';
import { brief, HomeDecoys, marker, SandboxPool, scratchDirectory, startChildHost } from './support.js';

const { attack } = securityCategory('filesystem-read');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
const decoys = new HomeDecoys();
const home = homedir();

beforeAll(async () => {
  scratch = await scratchDirectory('read');
  pool = new SandboxPool(scratch.path);
});
afterAll(async () => {
  await pool.destroyAll();
  await decoys.removeAll();
  await scratch.remove();
});

/** Runs `script` in a fresh default sandbox; returns all it printed. */
async function inside(script: string, options: Parameters<SandboxPool['create']>[0] = {}): Promise<string> {
  const session = await pool.create(options);
  const result = await session.run({ command: script });
  return `${result.stdout}${result.stderr}`;
}

/** A script that tries every way in to `path` and prints the secret if any of them works. */
const readAttempts = (path: string) =>
  [
    `cat ${path}`,
    `cat /proc/self/root${path}`,
    `cat /proc/1/root${path}`,
    `ls -la ${join(path, '..')}`,
    `grep -rs . ${join(path, '..')}`,
  ].join('; ');

for (const [label, relative] of [
  ['an SSH private key', '.ssh/id_decoy'],
  ['AWS credentials', '.aws/credentials-decoy'],
  ['shell history', '.bash_history-decoy'],
] as const) {
  attack(
    `read ${label} in the real home (~/${relative}-<random>)`,
    'refused: the home is an empty directory',
    async () => {
      const secret = marker('home-secret');
      const path = await decoys.plant(`${relative}-${secret}`, `${secret}\n`);
      const output = await inside(readAttempts(path));
      expect(output).not.toContain(`${secret}\n`);
      // Error messages name the file; only its content would be a leak.
      const leaks = output
        .split('\n')
        .filter(line => line.includes(secret) && !/No such file|cannot access|Permission denied/.test(line));
      expect(leaks).toEqual([]);
      return `not found: ${brief(output.split('\n').find(line => line.startsWith('cat:')) ?? output)}`;
    },
  );
}

attack('list the real home', 'refused: empty', async () => {
  const session = await pool.create();
  const result = await session.run({ command: `ls -A ${home} | wc -l; ls -A ${home}` });
  expect(result.stdout.split('\n')[0]).toBe('0');
  return `${home} is empty inside`;
});

attack(
  'run a tool from a PATH entry under the hidden home (~/.cargo/bin/decoy-<random>)',
  'refused: hideHome does not re-open PATH entries',
  async () => {
    const name = marker('decoy');
    const tool = await decoys.plant(`.cargo/bin/${name}`, `#!/bin/sh\necho ran-${name}\n`, 0o755);
    const previousPath = process.env.PATH;
    process.env.PATH = `${join(home, '.cargo', 'bin')}:${previousPath}`;
    try {
      const session = await pool.create();
      const result = await session.run({
        command: `${name}; command -v ${name} || echo not-on-path; ls ${tool}`,
      });
      expect(result.stdout).not.toContain(`ran-${name}`);
      expect(result.stdout).toContain('not-on-path');
      return brief(result.stderr || result.stdout);
    } finally {
      process.env.PATH = previousPath;
    }
  },
);

attack("read another sandbox's files (same sandboxes directory)", 'refused', async () => {
  const secret = marker('other-sandbox');
  const victim = await pool.create({ sandboxId: marker('victim') });
  await victim.writeTextFile({ path: 'secret.txt', content: secret });
  const victimFile = join(victim.defaultWorkingDirectory, 'secret.txt');
  const output = await inside(`${readAttempts(victimFile)}; grep -rs ${secret} ${scratch.path}`);
  // `cat` would print the secret on a line of its own, `grep -r` after the file's name.
  expect(output.split('\n').filter(line => line === secret || line.endsWith(`:${secret}`))).toEqual([]);
  return `not readable: ${brief(output.split('\n')[0]!)}`;
});

attack("read another sandbox's workspace the caller hid with denyRead", 'refused', async () => {
  const secret = marker('other-workspace');
  const workspace = join(scratch.path, marker('victim-ws'));
  await mkdir(workspace);
  await writeFile(join(workspace, 'notes.txt'), secret);
  await pool.create({ workspace });
  const output = await inside(`cat ${workspace}/notes.txt; ls ${workspace}`, { denyRead: [workspace] });
  expect(output).not.toContain(secret);
  return `not readable: ${brief(output)}`;
});

attack(
  'read /proc/<pid>/environ of the host test process',
  'refused: the host is outside the PID namespace',
  async () => {
    const secret = marker('host-env');
    process.env.SECURITY_HOST_SECRET = secret;
    try {
      const session = await pool.create();
      const result = await session.run({
        command:
          `cat /proc/${process.pid}/environ /proc/${process.ppid}/environ; ` +
          `for f in /proc/[0-9]*/environ /proc/[0-9]*/task/*/environ; do tr '\\0' '\\n' < $f; done 2>/dev/null | grep -c ${secret}`,
      });
      expect(result.stdout).not.toContain(`SECURITY_HOST_SECRET=${secret}`);
      expect(result.stdout.trim()).toBe('0');
      return `not visible: ${brief(result.stderr.split('\n')[0]!)}`;
    } finally {
      delete process.env.SECURITY_HOST_SECRET;
    }
  },
);

attack('read host process memory (/proc/*/mem, /proc/*/cmdline of the host)', 'refused', async () => {
  const output = await inside(
    `ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/${process.pid}/cmdline; head -c 16 /proc/${process.pid}/mem | wc -c`,
  );
  const processCount = Number(output.split('\n')[0]);
  // Only the sandbox's own handful of processes are visible.
  expect(processCount).toBeLessThan(30);
  expect(output).not.toContain('vitest');
  return `${processCount} processes visible, none of the host's`;
});

attack(
  'read a file the host process inherited open (fd leaked across bwrap)',
  'refused: the sandbox gets no host descriptor',
  async () => {
    const secret = marker('inherited-fd');
    const path = await decoys.plant(`.decoy-inherited-${secret}`, `${secret}\n`);
    const directory = join(scratch.path, 'child-host');
    await mkdir(directory);
    // A host started with a descriptor it does not know about (a service manager's, a CI runner's).
    const host = startChildHost(
      `const s = await pkg.createSrtNetworkSandboxSession({ directory: ${JSON.stringify(directory)} });
         const r = await s.run({ command: 'for f in /proc/self/fd/*; do n=\${f##*/}; [ \$n -gt 2 ] && timeout 2 head -c 200 \$f; done 2>/dev/null; ls -l /proc/self/fd' });
         console.log('OUT ' + JSON.stringify(r.stdout + r.stderr));
         await s.destroy();
         process.exit(0);`,
      { inheritFile: { fd: 200, path } },
    );
    const line = await host.line(/^OUT /);
    await host.exited();
    const output = JSON.parse(line.slice(4)) as string;
    expect(output).not.toContain(secret);
    return `not readable: ${brief(
      output
        .split('\n')
        .filter(l => l.includes('->'))
        .join(', '),
    )}`;
  },
);
