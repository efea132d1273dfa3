/**
 * Writes the results into docs/benchmarks.md between two markers, keeping the hand-written analysis
 * around them, and formats the file as the repository's prettier check expects.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import prettier from 'prettier';

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';
export const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

const SKELETON = `# Benchmarks

\`pnpm bench\` builds the packages and measures them side by side with the host doing the same work
directly (the floor), srt run once per command (the naive fence) and \`@ai-sdk/sandbox-just-bash\`.

## Results

${START}
${END}
`;

export async function writeResults(markdown: string): Promise<void> {
  const current = existsSync(DOC) ? await readFile(DOC, 'utf8') : SKELETON;
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const base =
    start >= 0 && end > start ? current : `${current.trimEnd()}\n\n## Results\n\n${START}\n${END}\n`;
  const from = base.indexOf(START) + START.length;
  const to = base.indexOf(END);
  const text = `${base.slice(0, from)}\n\n${markdown}\n\n${base.slice(to)}`;
  const options = (await prettier.resolveConfig(DOC)) ?? {};
  await mkdir(dirname(DOC), { recursive: true });
  await writeFile(DOC, await prettier.format(text, { ...options, filepath: DOC }));
}
