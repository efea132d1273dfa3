import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { quoteWord, quoteWords, splitShellWords } from './shell-words.js';

describe('shell words', () => {
  it('reads back any list of words it quoted', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary' }).filter(word => !word.includes('\0'))), words => {
        expect(splitShellWords(quoteWords(words))).toEqual(words);
      }),
    );
  });

  it('quotes as srt does: bare when safe, single quotes otherwise', () => {
    expect(quoteWord('--ro-bind')).toBe('--ro-bind');
    expect(quoteWord('')).toBe("''");
    expect(quoteWord("it's")).toBe(`'it'"'"'s'`);
    expect(quoteWord('=x')).toBe("'=x'");
    expect(quoteWord('a b')).toBe("'a b'");
  });

  it('refuses what it cannot read exactly', () => {
    expect(splitShellWords('echo $HOME')).toBeUndefined();
    expect(splitShellWords('a\\ b')).toBeUndefined();
    expect(splitShellWords("'open")).toBeUndefined();
    expect(splitShellWords('a  b')).toBeUndefined();
    expect(splitShellWords('a "b"')).toBeUndefined();
  });
});
