/**
 * Where the time of one run('true') goes, from the frames on the supervisor's pipes: the host
 * preparing the call, the supervisor starting bash (reply with the pid), bash running until the
 * supervisor reports its output ended and its exit (event), and the host finishing the result.
 * Usage: node bench/profile/run-true-steps.ts [iterations]
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize } from '../lib/stats.ts';
import { tapFrames, type SeenFrame } from './frame-tap.ts';
import { installSpawnHook } from './spawn-hook.ts';

const iterations = Number(process.argv[2] ?? 300);
const frames = new Map<string, SeenFrame[]>();
let pending: string | undefined;
installSpawnHook({
  spawned(child: ChildProcess, file, args) {
    const command = args.join(' ');
    if (!command.includes('supervisor.js') || !child.stdin) return;
    const name = command.includes('bwrap') ? 'srt' : 'local';
    if (frames.has(name) || (pending && pending !== name)) return;
    const seen: SeenFrame[] = [];
    frames.set(name, seen);
    tapFrames(child, seen);
    void file;
  },
});

const directory = mkdtempSync(join(tmpdir(), 'bench-steps-'));
const srtModule = await import('../../packages/sandbox-runtime/dist/index.js');
const localModule = await import('../../packages/sandbox-local/dist/index.js');
pending = 'srt';
const srt = await srtModule.createSrtNetworkSandboxSession({ directory });
pending = 'local';
const local = await localModule.createLocalNetworkSandboxSession({ directory });
pending = undefined;

const steps = new Map<string, Map<string, number[]>>();
const record = (name: string, step: string, ms: number) => {
  const byStep = steps.get(name) ?? new Map<string, number[]>();
  steps.set(name, byStep);
  byStep.set(step, [...(byStep.get(step) ?? []), ms]);
};
for (let i = -20; i < iterations; i++) {
  for (const [name, session] of [
    ['srt', srt],
    ['local', local],
  ] as const) {
    const seen = frames.get(name)!;
    seen.length = 0;
    const t0 = performance.now();
    await session.run({ command: 'true' });
    const t1 = performance.now();
    if (i < 0) continue;
    const call = seen.find(frame => frame.direction === 'in' && frame.kind === 1)!;
    const reply = seen.find(frame => frame.direction === 'out' && frame.kind === 2)!;
    const ends = seen.filter(frame => frame.direction === 'out' && frame.kind === 5);
    const event = seen.find(frame => frame.direction === 'out' && frame.kind === 3)!;
    record(name, 'a. host: run() to call frame written', call.at - t0);
    record(name, 'b. supervisor: call to reply (spawn of bash, pid known)', reply.at - call.at);
    record(name, 'c. bash runs `true`, exits; outputs end (End frames)', ends.at(-1)!.at - reply.at);
    record(name, 'd. End frames to exit event', event.at - ends.at(-1)!.at);
    record(name, 'e. host: exit event to run() resolved', t1 - event.at);
    record(name, 'total', t1 - t0);
    record(
      name,
      'pipe reads carrying frames',
      new Set(seen.filter(f => f.direction === 'out').map(f => f.at)).size,
    );
  }
}
for (const [name, byStep] of steps) {
  console.log(`\n${name} (${iterations} runs; median / p95)`);
  for (const [step, samples] of byStep) {
    const summary = summarize(samples);
    console.log(
      `  ${step.padEnd(58)} ${summary.median.toFixed(3).padStart(8)} ${summary.p95.toFixed(3).padStart(8)}`,
    );
  }
}
await Promise.all([srt.destroy(), local.destroy()]);
process.exit(0);
