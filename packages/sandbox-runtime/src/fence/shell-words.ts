/*
 * POSIX shell words, in the one form srt writes them: bare words of safe characters, and
 * single-quoted strings whose own single quotes are written '"'"'. `splitShellWords` reads that
 * form back and nothing else (no $, no backslash, no unquoted newline), so a command it
 * cannot read exactly is reported as unreadable rather than misread.
 */

const BARE = /^[A-Za-z0-9_./:@+,-][A-Za-z0-9_./:=@+,-]*$/;

/** Quotes one word for `sh -c`; a bare word stays bare. */
export function quoteWord(word: string): string {
  if (word === '') return "''";
  if (BARE.test(word)) return word;
  return `'${word.replace(/'/g, `'"'"'`)}'`;
}

export function quoteWords(words: readonly string[]): string {
  return words.map(quoteWord).join(' ');
}

const BARE_CHAR = /[A-Za-z0-9_./:=@+,-]/;

/** The words of `line`, or undefined when it is not in the form above. */
export function splitShellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let i = 0;
  while (i < line.length) {
    let word = '';
    let started = false;
    while (i < line.length && line[i] !== ' ') {
      const char = line[i]!;
      if (char === "'") {
        const end = line.indexOf("'", i + 1);
        if (end === -1) return undefined;
        word += line.slice(i + 1, end);
        i = end + 1;
      } else if (char === '"') {
        // Only the `"'"` that stands for a single quote.
        if (line.slice(i, i + 3) !== `"'"`) return undefined;
        word += "'";
        i += 3;
      } else if (BARE_CHAR.test(char)) {
        word += char;
        i += 1;
      } else {
        return undefined;
      }
      started = true;
    }
    if (started) words.push(word);
    // One space between words; anything else is not what srt writes.
    if (i < line.length) {
      if (line[i + 1] === ' ' || i + 1 === line.length) return undefined;
      i += 1;
    }
  }
  return words;
}
