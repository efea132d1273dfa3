/**
 * The rows of the report: one per case and implementation, with the figure, how it compares to the
 * floor (the host doing the same thing directly), and the issue's target where there is one.
 */
import { summarize, type Summary } from './stats.ts';

export interface Target {
  /** What the issue asks for, as printed ("<= 1.2 ms"). */
  readonly text: string;
  readonly met: boolean;
}

export interface Row {
  readonly group: string;
  readonly label: string;
  readonly impl: string;
  readonly unit: 'ms' | 'MB';
  readonly summary: Summary;
  /** "3.1x host", "62% of host": how it compares with the floor. */
  readonly ratio?: string;
  /** MB/s for transfers. */
  readonly throughput?: number;
  readonly target?: Target;
  readonly note?: string;
}

export interface CaseOptions {
  /** The implementation the others are compared with (default 'host'). */
  readonly baseline?: string;
  /** Bytes moved per iteration: adds MB/s and shows the ratio as a share of the baseline's rate. */
  readonly bytes?: number;
  /** Targets by implementation, computed from its summary and the baseline's. */
  readonly targets?: Record<string, (summary: Summary, baseline: Summary | undefined) => Target>;
  readonly notes?: Record<string, string>;
}

export class Results {
  readonly rows: Row[] = [];

  /** `quiet`: a row already printed (by the process that measured it). */
  add(row: Row, quiet = false): void {
    this.rows.push(row);
    if (!quiet) printRow(row);
  }

  /** Adds one row per implementation of a timed case. */
  addCase(group: string, label: string, samples: Map<string, number[]>, options: CaseOptions = {}): void {
    const baselineName = options.baseline ?? 'host';
    const baseline = samples.has(baselineName) ? summarize(samples.get(baselineName)!) : undefined;
    for (const [impl, list] of samples) {
      const summary = summarize(list);
      let ratio: string | undefined;
      let throughput: number | undefined;
      if (options.bytes !== undefined) throughput = options.bytes / 2 ** 20 / (summary.median / 1000);
      if (baseline && impl !== baselineName) {
        ratio =
          options.bytes !== undefined
            ? `${Math.round((baseline.median / summary.median) * 100)}% of ${baselineName}`
            : `${(summary.median / baseline.median).toFixed(1)}x ${baselineName}`;
      }
      this.add({
        group,
        label,
        impl,
        unit: 'ms',
        summary,
        ratio,
        throughput,
        target: options.targets?.[impl]?.(summary, baseline),
        note: options.notes?.[impl],
      });
    }
  }

  /** A measured quantity that is not a time (memory). */
  addValue(group: string, label: string, impl: string, megabytes: number, extra: Partial<Row> = {}): void {
    this.add({
      group,
      label,
      impl,
      unit: 'MB',
      summary: { n: 1, median: megabytes, p95: NaN, min: megabytes },
      ...extra,
    });
  }

  summaryOf(group: string, label: string, impl: string): Summary | undefined {
    return this.rows.find(row => row.group === group && row.label === label && row.impl === impl)?.summary;
  }
}

/** Progress on stderr as rows come in, so a long run shows where it is. */
function printRow(row: Row): void {
  const value = row.unit === 'MB' ? `${row.summary.median.toFixed(1)} MB` : `${formatMs(row.summary.median)}`;
  const target = row.target ? ` [${row.target.met ? 'met' : 'MISSED'} ${row.target.text}]` : '';
  process.stderr.write(
    `  ${row.label} / ${row.impl}: ${value}${row.ratio ? ` (${row.ratio})` : ''}${target}\n`,
  );
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '-';
  if (ms < 10) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(1)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}
