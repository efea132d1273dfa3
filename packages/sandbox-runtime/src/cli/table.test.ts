import { describe, expect, it } from 'vitest';
import { formatBytes, renderTable } from './table.js';

describe('renderTable', () => {
  it('aligns every column but the last, marks counting as one character', () => {
    expect(
      renderTable([
        ['✓', 'short', 'a'],
        ['✗', 'a longer cell', 'b'],
      ]),
    ).toEqual(['✓  short          a', '✗  a longer cell  b']);
  });
});

describe('formatBytes', () => {
  it('reads like du -h', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(2_000_000)).toBe('1.9 MB');
    expect(formatBytes(300 * 1024 * 1024)).toBe('300 MB');
  });
});
