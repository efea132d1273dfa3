import { COMMON_OPTIONS, parseCommandArgs, resolveUserPath, runtimeSettings } from './args.js';
import { line, type CliIo } from './cli-io.js';
import { hasModelKey, runClaudeDemo } from './claude-demo.js';
import { runFenceTour } from './fence-tour.js';
import { progressPrinter } from './progress.js';
import { mark, renderTable } from './table.js';
import { DEMO_USAGE } from './usage.js';

const DEMO_OPTIONS = {
  ...COMMON_OPTIONS,
  prompt: { type: 'string' },
  workspace: { type: 'string' },
} as const;

/**
 * `demo`: with ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN, a real Claude Code turn in a sandbox;
 * without, the fence tour. Exits 0 when the turn completed, or every row of the tour came out as
 * expected.
 */
export async function demoCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('demo', argv, DEMO_OPTIONS);
  if (values.help) {
    io.stdout.write(DEMO_USAGE);
    return 0;
  }
  const runtime = runtimeSettings(values);
  if (hasModelKey(io.env)) {
    return runClaudeDemo(io, {
      directory: values.directory,
      runtime,
      prompt: values.prompt,
      workspace: values.workspace === undefined ? undefined : resolveUserPath(values.workspace, io.cwd),
    });
  }
  line(
    io.stdout,
    'No ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN set, so no Claude Code turn: here is the fence instead.',
  );
  const rows = await runFenceTour({
    directory: values.directory,
    runtime,
    onProgress: progressPrinter(io),
    signal: io.signal,
  });
  line(io.stdout);
  line(io.stdout, 'What an agent in a sandbox can do, each row checked just now on this machine:');
  line(io.stdout);
  const table = renderTable(
    [
      ['', 'THE AGENT TRIES TO', 'EXPECTED', 'WHAT HAPPENED'],
      ...rows.map(row => [mark(row.ok), row.attempt, row.expected, row.actual]),
    ],
    '  ',
  );
  for (const text of table) line(io.stdout, text);
  line(io.stdout);
  const unexpected = rows.filter(row => !row.ok).length;
  line(
    io.stdout,
    unexpected === 0
      ? `All ${rows.length} behaved as expected. Set ANTHROPIC_API_KEY to watch Claude Code work in one.`
      : `${unexpected} of ${rows.length} did not behave as expected: run \`ai-sdk-sandbox-runtime doctor\`.`,
  );
  return unexpected === 0 ? 0 : 1;
}
