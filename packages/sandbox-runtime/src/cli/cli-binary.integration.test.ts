// The built binary, as a user runs it: a process of its own, its exit code the command's.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withoutModelKeys } from './cli-test-support.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(packageDir, 'dist', 'cli.js');
let root: string;
let home: string;

beforeAll(async () => {
  execFileSync('pnpm', ['exec', 'tsup', '--silent'], { cwd: packageDir, stdio: 'inherit' });
  root = await mkdtemp(join(tmpdir(), 'srt-cli-binary-'));
  // A home of the test's own: the tour writes into the user's home, and sandboxes default to it.
  home = join(root, 'home');
  mkdirSync(home);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const runCli = (args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    env: { ...withoutModelKeys(), HOME: home },
    encoding: 'utf8',
    timeout: 120_000,
  });

it('exits with the code of the command it ran, and tours the fence without a key', async () => {
  const exit = runCli(['run', '--', 'sh', '-c', 'exit 3']);
  expect(exit.status, exit.stderr).toBe(3);

  const demo = runCli(['demo']);
  expect(demo.status, `${demo.stdout}\n${demo.stderr}`).toBe(0);
  expect(demo.stdout).toContain('No ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN set');
  const rows = demo.stdout.split('\n').filter(line => /^\s+[✓✗]\s/.test(line));
  expect(rows.map(row => row.trim().slice(0, 1))).toEqual(Array(8).fill('✓'));
  for (const attempt of [
    'read a file in your home',
    'write in its workspace',
    'write to /etc',
    'write to your home',
    'reach registry.npmjs.org',
    'reach example.com',
    'read ANTHROPIC_API_KEY it was given',
    'serve on port 4000 to this host',
  ]) {
    expect(
      rows.some(row => row.includes(attempt)),
      attempt,
    ).toBe(true);
  }
  expect(demo.stdout).toMatch(/reach example\.com\s+refused by the proxy\s+refused: the proxy answered 403/);
  expect(demo.stdout).toMatch(/read ANTHROPIC_API_KEY it was given\s+a placeholder only\s+got aisdkhc_/);
  // Both ran in the default directory, under HOME, and left nothing there nor in the home.
  expect(await readdir(join(home, '.ai-sdk-sandbox-runtime'))).toEqual([]);
  expect(await readdir(home)).toEqual(['.ai-sdk-sandbox-runtime']);
});
