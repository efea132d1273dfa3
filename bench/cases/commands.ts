/** Commands: the fixed cost of one, a large output, and many at once. */
import type { BenchContext } from '../lib/context.ts';
import { hostRun, hostSpawnNote } from '../lib/host.ts';
import { interleave } from '../lib/interleave.ts';
import { cliRunner, naiveRun } from '../lib/naive-srt.ts';
import { scratch } from '../lib/sandboxes.ts';
import { summarize } from '../lib/stats.ts';

const GROUP = 'Commands';
export const JUST_BASH_NOTE = 'emulates bash in-process (no processes, no isolation)';

export async function commandCases(context: BenchContext): Promise<void> {
  const { srt, local, justBash, manager, results } = context;
  const cli = cliRunner(scratch);
  const check = (result: { exitCode: number }) => {
    if (result.exitCode !== 0)
      throw new Error(`a benchmark command failed with exit code ${result.exitCode}`);
  };

  const rounds = context.n(300);
  const single = await interleave(
    [
      { name: 'host', run: async () => check(await hostRun('true')) },
      { name: 'local', run: async () => check(await local.run({ command: 'true' })) },
      { name: 'srt', run: async () => check(await srt.run({ command: 'true' })) },
      {
        name: 'naive srt (library)',
        iterations: context.n(40),
        run: async () => check(await naiveRun(manager, 'true')),
      },
      { name: 'naive srt (CLI)', iterations: context.n(5), run: async () => check(await cli('true')) },
      { name: 'just-bash', run: async () => check(await justBash.run({ command: 'true' })) },
    ],
    { iterations: rounds, warmup: 10 },
  );
  results.addCase(GROUP, "run('true')", single, {
    targets: {
      srt: summary => ({ text: '<= 1.2 ms', met: summary.median <= 1.2 }),
      'naive srt (library)': summary => {
        const speedup = summary.median / summarize(single.get('srt')!).median;
        return { text: `srt >= 20x faster (is ${speedup.toFixed(1)}x)`, met: speedup >= 20 };
      },
    },
    notes: { host: hostSpawnNote(), 'just-bash': JUST_BASH_NOTE },
  });

  // 64 MiB of output, collected as text by `run`, as the harness does with a command's output.
  const bytes = 64 * 2 ** 20;
  const big = `head -c ${bytes} /dev/zero`;
  const checkSize = (result: { stdout: string; exitCode: number }) => {
    check(result);
    if (result.stdout.length !== bytes)
      throw new Error(`expected ${bytes} bytes of output, got ${result.stdout.length}`);
  };
  const output = await interleave(
    [
      { name: 'host', run: async () => checkSize(await hostRun(big)) },
      { name: 'local', run: async () => checkSize(await local.run({ command: big })) },
      { name: 'srt', run: async () => checkSize(await srt.run({ command: big })) },
      { name: 'naive srt (library)', run: async () => checkSize(await naiveRun(manager, big)) },
    ],
    { iterations: context.n(7), warmup: 1 },
  );
  results.addCase(GROUP, 'run printing 64 MiB', output, {
    bytes,
    notes: { srt: 'no target in the issue; shown as a share of the host rate' },
  });

  // Fifty at once: the link multiplexes them over one pipe, the supervisor spawns them all.
  const fifty = (run: () => PromiseLike<{ exitCode: number }>) => async () => {
    for (const result of await Promise.all(Array.from({ length: 50 }, run))) check(result);
  };
  const concurrent = await interleave(
    [
      { name: 'host', run: fifty(() => hostRun('true')) },
      { name: 'local', run: fifty(() => local.run({ command: 'true' })) },
      { name: 'srt', run: fifty(() => srt.run({ command: 'true' })) },
      { name: 'naive srt (library)', iterations: context.n(4), run: fifty(() => naiveRun(manager, 'true')) },
      { name: 'just-bash', run: fifty(() => justBash.run({ command: 'true' })) },
    ],
    { iterations: context.n(20), warmup: 2 },
  );
  results.addCase(GROUP, "50 concurrent run('true')", concurrent, {
    notes: { host: hostSpawnNote(), 'just-bash': JUST_BASH_NOTE },
  });
}
