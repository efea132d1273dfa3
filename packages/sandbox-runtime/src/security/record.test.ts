import { describe, expect, it } from 'vitest';

import { mergeRows, parseDocument, renderDocument, type SecurityRow } from './record.js';

const row = (category: string, attempt: string, outcome = '✅ refused'): SecurityRow => ({
  category,
  attempt,
  expected: 'refused',
  outcome,
});

describe('the security record', () => {
  it('reads back what it wrote, pipes and newlines included', () => {
    const rows = [
      row('network', 'curl a | b', '❌ got 200\nsecond line'),
      row('filesystem-read', 'cat ~/.ssh'),
    ];
    const parsed = parseDocument(renderDocument(rows));
    expect(parsed).toEqual([
      row('filesystem-read', 'cat ~/.ssh'),
      row('network', 'curl a | b', '❌ got 200 second line'),
    ]);
  });

  it('replaces a category after a complete run and keeps the others', () => {
    const previous = [row('network', 'old'), row('faults', 'kept')];
    expect(mergeRows(previous, 'network', [row('network', 'new')], true)).toEqual([
      row('faults', 'kept'),
      row('network', 'new'),
    ]);
  });

  it('updates only the attempts a partial run made', () => {
    const previous = [row('network', 'a'), row('network', 'b')];
    const merged = mergeRows(previous, 'network', [row('network', 'b', '❌ hole')], false);
    expect(merged).toEqual([row('network', 'b', '❌ hole'), row('network', 'a')]);
  });

  it('counts the attempts not refused', () => {
    expect(renderDocument([row('x', 'a', '❌ no'), row('x', 'b')])).toContain('2 attempts, 1 not refused.');
  });
});
