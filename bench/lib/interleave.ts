/**
 * Runs several implementations of one case in alternation: every round runs each of them once, in an
 * order that rotates from round to round, so load from other processes, thermal drift and GC pressure
 * fall on all of them alike instead of on whichever ran last.
 */
import { performance } from 'node:perf_hooks';

export interface Subject {
  readonly name: string;
  /**
   * One iteration. Returns nothing to be timed from outside (wall clock around the call), or the
   * measured figure itself (a time the subject reports, such as curl's own total).
   */
  readonly run: () => PromiseLike<number | void>;
  /** Fewer iterations than the others (slow baselines): spread evenly over the rounds. */
  readonly iterations?: number;
  /** Untimed work after each iteration (removing a sandbox just made). */
  readonly after?: () => PromiseLike<void>;
}

export interface InterleaveOptions {
  readonly iterations: number;
  /** Untimed rounds first (JIT, caches, first connection). */
  readonly warmup?: number;
}

export async function interleave(
  subjects: readonly Subject[],
  options: InterleaveOptions,
): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(subjects.map(subject => [subject.name, []]));
  const warmup = options.warmup ?? 0;
  const rounds = options.iterations;
  for (let round = -warmup; round < rounds; round++) {
    for (let k = 0; k < subjects.length; k++) {
      const subject = subjects[(k + Math.max(round, 0)) % subjects.length]!;
      if (round >= 0 && !takesPart(subject, round, rounds)) continue;
      if (round < 0 && subject.iterations !== undefined && round < -1) continue; // slow ones warm once
      const start = performance.now();
      const reported = await subject.run();
      const elapsed = performance.now() - start;
      await subject.after?.();
      if (round >= 0) samples.get(subject.name)!.push(typeof reported === 'number' ? reported : elapsed);
    }
  }
  return samples;
}

/** Whether a subject with fewer iterations runs in this round (k of n rounds, evenly spaced). */
function takesPart(subject: Subject, round: number, rounds: number): boolean {
  const wanted = Math.min(subject.iterations ?? rounds, rounds);
  return Math.floor(((round + 1) * wanted) / rounds) > Math.floor((round * wanted) / rounds);
}
