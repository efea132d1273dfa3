/** The results as a table: plain text for the terminal, Markdown for docs/benchmarks.md. */
import { formatMs, type Row } from './results.ts';
import type { Machine } from './machine.ts';

const HEADER = ['Case', 'Implementation', 'Median', 'p95', 'vs floor', 'MB/s', 'Target', 'Note'];

function cells(row: Row): string[] {
  const memory = row.unit === 'MB';
  return [
    row.label,
    row.impl,
    memory ? `${row.summary.median.toFixed(1)} MB` : formatMs(row.summary.median),
    memory ? '' : formatMs(row.summary.p95),
    row.ratio ?? '',
    row.throughput === undefined ? '' : row.throughput.toFixed(0),
    row.target ? `${row.target.met ? 'met' : '**missed**'}: ${row.target.text}` : '',
    row.note ?? '',
  ];
}

export function textTable(rows: readonly Row[]): string {
  const lines: string[] = [];
  for (const group of groupsOf(rows)) {
    const table = [
      HEADER.slice(0, 7),
      ...group.rows.map(row =>
        cells(row)
          .slice(0, 7)
          .map(c => c.replaceAll('**', '')),
      ),
    ];
    const widths = HEADER.slice(0, 7).map((_, i) => Math.max(...table.map(line => line[i]!.length)));
    lines.push('', `== ${group.name} ==`);
    for (const [index, line] of table.entries()) {
      lines.push(
        line
          .map((cell, i) => (i >= 2 && i <= 5 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
          .join('  '),
      );
      if (index === 0) lines.push(widths.map(width => '-'.repeat(width)).join('  '));
    }
  }
  return lines.join('\n');
}

export function markdownResults(
  rows: readonly Row[],
  machine: Machine,
  seconds: number,
  quick: boolean,
): string {
  const escape = (text: string) => text.replaceAll('|', '\\|');
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`pnpm bench\`${quick ? ' --quick (a fifth of the iterations)' : ''} in ${Math.round(seconds)} s.`,
    '',
    `- CPU: ${machine.cpu}, ${machine.cores} cores; memory ${machine.memoryGiB} GiB`,
    `- Kernel ${machine.kernel} (${machine.os}); ${machine.bwrap}`,
    `- Node ${machine.node}; srt (@anthropic-ai/sandbox-runtime) ${machine.srt}`,
    `- Load average at the start: ${machine.loadAtStart} (the machine is shared, so absolute figures carry noise; the implementations of a case alternate in every round, so their ratios carry less)`,
  ];
  for (const group of groupsOf(rows)) {
    lines.push(
      '',
      `### ${group.name}`,
      '',
      `| ${HEADER.join(' | ')} |`,
      `| ${HEADER.map(() => '---').join(' | ')} |`,
    );
    for (const row of group.rows) lines.push(`| ${cells(row).map(escape).join(' | ')} |`);
  }
  return lines.join('\n');
}

function groupsOf(rows: readonly Row[]): Array<{ name: string; rows: Row[] }> {
  const groups: Array<{ name: string; rows: Row[] }> = [];
  for (const row of rows) {
    const group = groups.find(candidate => candidate.name === row.group);
    if (group) group.rows.push(row);
    else groups.push({ name: row.group, rows: [row] });
  }
  return groups;
}
