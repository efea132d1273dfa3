/**
 * Where the time of the first srt sandbox of a process goes: srt's initialize (proxy, host socat,
 * CA), the probe (a fenced `true` before the first sandbox), then the same steps as any sandbox.
 * Run it in a fresh process: node bench/profile/first-steps.ts (repeat it for more samples).
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { installSpawnHook } from './spawn-hook.ts';

if (process.argv[2] !== 'child') {
  // Several fresh processes, then the medians of each step.
  const runs = Number(process.argv[2] ?? 7);
  const all = new Map<string, number[]>();
  for (let i = 0; i < runs; i++) {
    const out = spawnSync(process.execPath, [process.argv[1]!, 'child'], { encoding: 'utf8' });
    for (const [step, ms] of Object.entries(
      JSON.parse(out.stdout.trim().split('\n').pop()!) as Record<string, number>,
    )) {
      all.set(step, [...(all.get(step) ?? []), ms]);
    }
  }
  console.log(`first srt sandbox of a process (${runs} processes; median ms)`);
  for (const [step, samples] of all) {
    const sorted = samples.sort((a, b) => a - b);
    console.log(`  ${step.padEnd(48)} ${sorted[sorted.length >> 1]!.toFixed(1).padStart(7)}`);
  }
  process.exit(0);
}

const marks: Array<[string, number]> = [];
const mark = (name: string) => marks.push([name, performance.now()]);
const t0 = performance.now();
installSpawnHook({
  spawned(child: ChildProcess, file, args) {
    const command = `${file} ${args.join(' ')}`;
    if (command.includes('supervisor.js')) {
      mark('supervisor spawned');
      child.stdout?.prependOnceListener('data', () => mark('hello'));
    } else if (command.includes('bwrap')) {
      mark('probe spawned');
      child.once('close', () => mark('probe done'));
    }
  },
});
const require = createRequire(new URL('../../packages/sandbox-runtime/package.json', import.meta.url));
const { SandboxManager } = (await import(require.resolve('@anthropic-ai/sandbox-runtime'))) as {
  SandboxManager: Record<string, (...args: unknown[]) => Promise<unknown>>;
};
for (const method of ['initialize', 'wrapWithSandbox'] as const) {
  const original = SandboxManager[method]!.bind(SandboxManager);
  SandboxManager[method] = async (...args: unknown[]) => {
    mark(`${method} start`);
    try {
      return await original(...args);
    } finally {
      mark(`${method} end`);
    }
  };
}
const { createSrtNetworkSandboxSession } = await import('../../packages/sandbox-runtime/dist/index.js');
mark('imported');
const session = await createSrtNetworkSandboxSession({
  directory: mkdtempSync(join(tmpdir(), 'bench-first-')),
});
mark('created');
await session.run({ command: 'true' });
mark('first result');
const steps: Record<string, number> = {};
let previous = t0;
let label = 'start';
const seen = new Map<string, number>();
for (const [name, at] of marks) {
  const count = (seen.get(name) ?? 0) + 1;
  seen.set(name, count);
  const unique = count > 1 ? `${name} #${count}` : name;
  steps[`${label} -> ${unique}`] = at - previous;
  previous = at;
  label = unique;
}
steps['create() to first result'] = marks.at(-1)![1] - marks.find(([name]) => name === 'imported')![1];
console.log(JSON.stringify(steps));
await session.destroy();
process.exit(0);
