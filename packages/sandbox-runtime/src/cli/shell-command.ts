/**
 * `shell`: lines read from stdin, each run in the same sandbox as its own `bash -c`, the way an
 * agent's commands run, so the user sees what the agent sees. Only the working directory carries
 * over from one line to the next (a plain `cd` line is resolved in the sandbox and remembered).
 */
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { parseCommandArgs, SANDBOX_OPTIONS, sandboxSpec } from './args.js';
import { line, type CliIo } from './cli-io.js';
import { openSandbox } from './open-sandbox.js';
import { streamCommand } from './stream-command.js';
import { SHELL_USAGE } from './usage.js';

// `cd somewhere` alone on its line; `cd x && make` is an ordinary command, whose cd does not last.
const CD_LINE = /^cd(?:\s+([^;&|<>`()]*))?$/;
const EXIT_LINE = /^exit(?:\s+(\d{1,3}))?$/;

export async function shellCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('shell', argv, SANDBOX_OPTIONS);
  if (values.help) {
    io.stdout.write(SHELL_USAGE);
    return 0;
  }
  const sandbox = await openSandbox(sandboxSpec(values, io.cwd), io);
  const { session } = sandbox;
  const interactive = io.stdin.isTTY === true;
  const reader = createInterface({
    input: io.stdin,
    output: interactive ? (io.stdout as Writable) : undefined,
    terminal: interactive,
  });
  let cwd = session.defaultWorkingDirectory;
  let status = 0;
  let running: AbortController | undefined;
  const prompt = () => {
    if (!interactive) return;
    reader.setPrompt(`[sandbox] ${cwd}$ `);
    reader.prompt();
  };
  // In a terminal Ctrl-C reaches readline, not the process: it stops the running command, or
  // clears the line being typed, as a shell would.
  reader.on('SIGINT', () => {
    if (running) running.abort();
    else {
      io.stdout.write('^C\n');
      prompt();
    }
  });
  const onAbort = () => {
    running?.abort();
    reader.close();
  };
  io.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    if (interactive) {
      line(
        io.stderr,
        `Sandbox ${session.id}, working in ${cwd}. Each line runs as its own \`bash -c\`, without a ` +
          'terminal or stdin; only `cd` carries over. Ctrl-D or `exit` leaves.',
      );
    }
    prompt();
    for await (const input of reader) {
      const text = input.trim();
      const exit = EXIT_LINE.exec(text);
      if (exit) {
        if (exit[1] !== undefined) status = Number(exit[1]) & 255;
        break;
      }
      if (text !== '') {
        running = new AbortController();
        const cd = CD_LINE.exec(text);
        if (cd) {
          const moved = await session.run({
            command: `cd ${cd[1]?.trim() ?? ''} && pwd`,
            workingDirectory: cwd,
            abortSignal: running.signal,
          });
          if (moved.exitCode === 0) cwd = moved.stdout.trim();
          else io.stderr.write(moved.stderr);
          status = moved.exitCode;
        } else {
          status = await streamCommand(session, text, io, { workingDirectory: cwd, signal: running.signal });
        }
        running = undefined;
      }
      if (io.signal?.aborted) break;
      prompt();
    }
  } finally {
    io.signal?.removeEventListener('abort', onAbort);
    reader.close();
    if (interactive) line(io.stdout);
    await sandbox.close();
  }
  return status;
}
