/**
 * `shell`: lines read from stdin, each run in the same sandbox as its own `bash -c`, the way an
 * agent's commands run, so the user sees what the agent sees. Only the working directory carries
 * over from one line to the next (a plain `cd` line is resolved in the sandbox and remembered).
 */
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import { parseCommandArgs, SANDBOX_OPTIONS, sandboxSpec } from './args.js';
import { INTERRUPTED_EXIT_CODE, line, type CliIo } from './cli-io.js';
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
  const workspace = session.defaultWorkingDirectory;
  let cwd = workspace;
  let status = 0;
  let running: AbortController | undefined;
  const prompt = () => {
    if (!interactive) return;
    const where =
      cwd === workspace
        ? 'workspace'
        : cwd.startsWith(`${workspace}/`)
          ? `workspace${cwd.slice(workspace.length)}`
          : cwd;
    reader.setPrompt(`[sandbox] ${where}$ `);
    reader.prompt();
  };
  // In a terminal Ctrl-C reaches readline, not the process: it stops the running command, or
  // drops the line being typed, as a shell would.
  reader.on('SIGINT', () => {
    io.stdout.write('^C\n');
    if (running) running.abort();
    else {
      reader.write(null, { ctrl: true, name: 'e' });
      reader.write(null, { ctrl: true, name: 'u' });
      prompt();
    }
  });
  const onAbort = () => {
    running?.abort();
    reader.close();
  };
  io.signal?.addEventListener('abort', onAbort, { once: true });
  // `cd <dir> && pwd` in the sandbox, so ~, .. and variables mean there what they mean to bash.
  const changeDirectory = async (target: string, signal: AbortSignal): Promise<number> => {
    try {
      const moved = await session.run({
        command: `cd ${target} && pwd`,
        workingDirectory: cwd,
        abortSignal: signal,
      });
      if (moved.exitCode === 0) cwd = moved.stdout.trim();
      else io.stderr.write(moved.stderr);
      return moved.exitCode;
    } catch (error) {
      if (signal.aborted) return INTERRUPTED_EXIT_CODE;
      throw error;
    }
  };

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
          status = await changeDirectory(cd[1]?.trim() ?? '', running.signal);
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
