/** Order statistics of a list of samples (milliseconds or bytes): the table shows medians and p95s. */
export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p95: number;
  readonly min: number;
}

export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) return { n: 0, median: NaN, p95: NaN, min: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    median: quantile(sorted, 0.5),
    p95: quantile(sorted, 0.95),
    min: sorted[0]!,
  };
}

/** Linear interpolation between the closest ranks, as most tools do. */
function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  const low = sorted[below]!;
  const high = sorted[above]!;
  return low + (high - low) * (position - below);
}
