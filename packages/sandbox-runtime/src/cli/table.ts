/** Plain-text tables and check marks for a terminal: columns aligned, the last one left ragged. */

export const CHECK = '✓';
export const CROSS = '✗';

export const mark = (ok: boolean): string => (ok ? CHECK : CROSS);

/** Display width, counting code points: enough for the marks and the text this CLI prints. */
function width(text: string): number {
  return [...text].length;
}

/** Rows of cells as lines, each cell padded to its column's widest, two spaces apart. */
export function renderTable(rows: readonly (readonly string[])[], indent = ''): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, column) => {
      widths[column] = Math.max(widths[column] ?? 0, width(cell));
    });
  }
  return rows.map(
    row =>
      indent +
      row
        .map((cell, column) =>
          column === row.length - 1 ? cell : cell + ' '.repeat(widths[column]! - width(cell)),
        )
        .join('  ')
        .trimEnd(),
  );
}

/** A byte count the way `du -h` would put it. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** A local date and time, to the minute. */
export function formatTime(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ` +
    `${two(date.getHours())}:${two(date.getMinutes())}`
  );
}
