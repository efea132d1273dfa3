/** What every group of cases gets: the shared sandboxes, the result table and the iteration scale. */
import { srtManager } from './naive-srt.ts';
import { Results } from './results.ts';
import {
  newJustBash,
  newLocal,
  newSrt,
  type JustBashSession,
  type LocalSession,
  type SrtSession,
} from './sandboxes.ts';

export interface BenchContext {
  readonly results: Results;
  /** `--quick`: a fifth of the iterations, for checking the bench itself. */
  readonly quick: boolean;
  readonly srt: SrtSession;
  readonly local: LocalSession;
  readonly justBash: JustBashSession;
  readonly manager: Awaited<ReturnType<typeof srtManager>>;
  /** The iteration count to use for a case meant to run `full` times. */
  n(full: number): number;
}

export async function openContext(quick: boolean): Promise<BenchContext> {
  const srt = await newSrt({ ports: [4000] });
  const [local, justBash, manager] = await Promise.all([newLocal(), newJustBash(), srtManager()]);
  return {
    results: new Results(),
    quick,
    srt,
    local,
    justBash,
    manager,
    n: full => (quick ? Math.max(2, Math.ceil(full / 5)) : full),
  };
}

export async function closeContext(context: BenchContext): Promise<void> {
  await Promise.allSettled([context.srt.destroy(), context.local.destroy(), context.justBash.destroy()]);
}
