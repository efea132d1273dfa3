/**
 * Where the time of creating an srt sandbox (not the first of the process) goes: the host's steps
 * before srt wraps the supervisor's command, srt's wrap, bwrap's start to the supervisor's hello, and
 * the first command. With STRACE=1 it also prints the exec timeline inside the sandbox (needs strace).
 * Usage: node bench/profile/startup-steps.ts [iterations]
 */
import { execFileSync, spawn as spawnChild, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize } from '../lib/stats.ts';
import { installSpawnHook } from './spawn-hook.ts';

const iterations = Number(process.argv[2] ?? 15);
const marks = new Map<string, number>();
const mark = (name: string) => {
  if (!marks.has(name)) marks.set(name, performance.now());
};
installSpawnHook({
  spawned(child: ChildProcess, _file, args) {
    if (!args.join(' ').includes('supervisor.js')) return;
    mark('spawned');
    child.stdout?.prependOnceListener('data', () => mark('hello'));
  },
});
const require = createRequire(new URL('../../packages/sandbox-runtime/package.json', import.meta.url));
const { SandboxManager } = (await import(require.resolve('@anthropic-ai/sandbox-runtime'))) as {
  SandboxManager: { wrapWithSandbox: (...args: unknown[]) => Promise<string> };
};
const wrap = SandboxManager.wrapWithSandbox.bind(SandboxManager);
SandboxManager.wrapWithSandbox = async (...args: unknown[]) => {
  mark('wrap start');
  try {
    return await wrap(...args);
  } finally {
    mark('wrap end');
  }
};

const { createSrtNetworkSandboxSession } = await import('../../packages/sandbox-runtime/dist/index.js');
const directory = mkdtempSync(join(tmpdir(), 'bench-startup-'));
const first = await createSrtNetworkSandboxSession({ directory });
await first.run({ command: 'true' });

const strace = process.env.STRACE === '1' ? traceExecs() : undefined;
await new Promise(resolve => setTimeout(resolve, strace ? 1000 : 0));
const steps = new Map<string, number[]>();
for (let i = 0; i < iterations; i++) {
  marks.clear();
  const t0 = performance.now();
  const session = await createSrtNetworkSandboxSession({ directory });
  mark('created');
  await session.run({ command: 'true' });
  mark('first result');
  const order = ['wrap start', 'wrap end', 'spawned', 'hello', 'created', 'first result'];
  let previous = t0;
  let label = 'create() called';
  for (const name of order) {
    const at = marks.get(name)!;
    const step = `${label} -> ${name}`;
    steps.set(step, [...(steps.get(step) ?? []), at - previous]);
    previous = at;
    label = name;
  }
  steps.set('total', [...(steps.get('total') ?? []), previous - t0]);
  await session.destroy();
}
console.log(`srt sandbox creation, not the first (${iterations} runs; median / p95 ms)`);
for (const [step, samples] of steps) {
  const summary = summarize(samples);
  console.log(
    `  ${step.padEnd(40)} ${summary.median.toFixed(2).padStart(8)} ${summary.p95.toFixed(2).padStart(8)}`,
  );
}

// Node's own start, inside the sandbox and on the host, for the "spawned -> hello" step.
const nodeBoot = async (run: () => PromiseLike<unknown>) => {
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    await run();
    samples.push(performance.now() - t);
  }
  return summarize(samples).median;
};
const inSandbox = await nodeBoot(() => first.run({ command: 'node -e 0' }));
const trueInSandbox = await nodeBoot(() => first.run({ command: 'true' }));
const onHost = await nodeBoot(() => {
  execFileSync(process.execPath, ['-e', '0']);
  return Promise.resolve();
});
console.log(
  `  node -e 0 inside the sandbox: ${(inSandbox - trueInSandbox).toFixed(1)} ms (run('node -e 0') minus run('true')); on the host: ${onHost.toFixed(1)} ms`,
);
if (strace) {
  strace.kill('SIGINT');
  await new Promise(resolve => strace.once('close', resolve));
  printExecTimeline(readFileSync(join(directory, 'strace.txt'), 'utf8'));
}
await first.destroy();
process.exit(0);

function traceExecs(): ChildProcess {
  return spawnChild(
    'strace',
    [
      '-f',
      '--seccomp-bpf',
      '-ttt',
      '-e',
      'trace=execve',
      '-qq',
      '-o',
      join(directory, 'strace.txt'),
      '-p',
      String(process.pid),
    ],
    { stdio: 'ignore' },
  );
}

/** The last sandbox's execs, relative to its bwrap. */
function printExecTimeline(text: string): void {
  const lines = text.split('\n').filter(line => line.includes('execve(') && !line.includes('resumed'));
  const bwrapAt = lines
    .map((line, index) => [line, index] as const)
    .filter(([line]) => /execve\("[^"]*bwrap"/.test(line));
  const start = bwrapAt.at(-1)?.[1];
  if (start === undefined) return void console.log('  (no bwrap exec in the trace)');
  const t0 = Number(lines[start - 1]?.split(' ')[1] ?? lines[start]!.split(' ')[1]);
  console.log('  exec timeline of the last sandbox (ms after the spawn of its bash):');
  for (const line of lines.slice(start - 1, start + 12)) {
    const [, time, ...rest] = line.split(' ');
    console.log(
      `    ${((Number(time) - t0) * 1000).toFixed(1).padStart(7)}  ${rest.join(' ').slice(0, 110)}`,
    );
  }
}
