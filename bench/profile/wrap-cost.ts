/**
 * What srt's wrapWithSandbox costs per sandbox, and its parts: the ripgrep scan for files to protect
 * (of the host process's working directory, whatever the sandbox's workspace) and a synchronous
 * `which` of the shell. Both are child processes of the host, so both slow down as its RSS grows.
 * Usage: node bench/profile/wrap-cost.ts [extra host MiB held]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize } from '../lib/stats.ts';

const held = Buffer.alloc(Number(process.argv[2] ?? 0) * 2 ** 20, 1);
const require = createRequire(new URL('../../packages/sandbox-runtime/package.json', import.meta.url));
const { SandboxManager } = (await import(require.resolve('@anthropic-ai/sandbox-runtime'))) as {
  SandboxManager: { wrapWithSandbox(command: string): Promise<string>; cleanupAfterCommand(): void };
};
const { createSrtNetworkSandboxSession } = await import('../../packages/sandbox-runtime/dist/index.js');
const directory = mkdtempSync(join(tmpdir(), 'bench-wrap-'));
const session = await createSrtNetworkSandboxSession({ directory });

const time = async (label: string, action: () => unknown) => {
  const samples: number[] = [];
  for (let i = 0; i < 25; i++) {
    const t = performance.now();
    await action();
    samples.push(performance.now() - t);
  }
  const { median, p95 } = summarize(samples.slice(5));
  console.log(`  ${label.padEnd(60)} ${median.toFixed(2).padStart(7)} ${p95.toFixed(2).padStart(7)}`);
};
console.log(`host RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB (median / p95 ms)`);
const original = process.cwd();
await time(`wrapWithSandbox('true'), cwd ${original}`, () => SandboxManager.wrapWithSandbox('true'));
const empty = mkdtempSync(join(tmpdir(), 'bench-empty-'));
process.chdir(empty);
await time("wrapWithSandbox('true'), cwd an empty directory", () => SandboxManager.wrapWithSandbox('true'));
process.chdir(original);
await time("spawnSync('which', ['bash']) (srt does one per wrap)", () => spawnSync('which', ['bash']));
await time(`spawnSync('rg', ['--files', '--max-depth', '4']) in ${original}`, () =>
  spawnSync('rg', ['--files', '--hidden', '--no-ignore', '--max-depth', '4', '-g', '!**/node_modules/**']),
);
await time("spawnSync('true')", () => spawnSync('true'));
void held;
await session.destroy();
process.exit(0);
