/** Sandbox creation: the first of a process (srt starts its proxy then) and later ones. */
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BenchContext } from '../lib/context.ts';
import { hostRun, hostSpawnNote } from '../lib/host.ts';
import { interleave } from '../lib/interleave.ts';
import { newJustBash, newLocal, newSrt, scratch } from '../lib/sandboxes.ts';
import { JUST_BASH_NOTE } from './commands.ts';

const GROUP = 'Startup';
const run = promisify(execFile);

export async function startupCases(context: BenchContext): Promise<void> {
  // Later sandboxes: created, then asked for their first command's result; removal is not timed.
  let destroy: (() => PromiseLike<unknown>) | undefined;
  const after = async () => {
    await destroy?.();
    destroy = undefined;
  };
  const fresh = await interleave(
    [
      { name: 'host', run: async () => void (await hostRun('true')) },
      ...(
        [
          ['local', newLocal],
          ['srt', () => newSrt()],
          ['just-bash', newJustBash],
        ] as const
      ).map(([name, create]) => ({
        name,
        after,
        run: async () => {
          const session = await create();
          destroy = () => session.destroy();
          await session.run({ command: 'true' });
        },
      })),
    ],
    { iterations: context.n(15), warmup: 1 },
  );
  context.results.addCase(GROUP, "new sandbox to first run('true') result (not the first)", fresh, {
    targets: { srt: summary => ({ text: '<= 40 ms', met: summary.median <= 40 }) },
    notes: { host: `spawn of bash -c 'true'; ${hostSpawnNote()}`, 'just-bash': JUST_BASH_NOTE },
  });

  // The first sandbox of a process: a fresh node process per sample.
  const script = new URL('../first-sandbox.ts', import.meta.url).pathname;
  const imports = new Map<string, number[]>();
  const child = (kind: string) => async () => {
    const directory = await mkdtemp(join(scratch, `first-${kind}-`));
    const { stdout } = await run(process.execPath, [script, kind, directory]);
    const { importMs, firstMs } = JSON.parse(stdout.trim().split('\n').pop()!) as {
      importMs: number;
      firstMs: number;
    };
    imports.set(kind, [...(imports.get(kind) ?? []), importMs]);
    return firstMs;
  };
  const first = await interleave(
    [
      { name: 'host', run: child('host') },
      { name: 'local', run: child('local') },
      { name: 'srt', run: child('srt') },
    ],
    { iterations: context.n(5) },
  );
  context.results.addCase(GROUP, "first sandbox of a process to first run('true') result", first, {
    targets: { srt: summary => ({ text: '<= 200 ms', met: summary.median <= 200 }) },
    notes: { host: 'first spawn in a fresh process' },
  });
  imports.delete('host');
  context.results.addCase(GROUP, 'import of the package (fresh process, not in the above)', imports, {
    baseline: 'local',
  });
}
