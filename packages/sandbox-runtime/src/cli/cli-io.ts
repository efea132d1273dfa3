/**
 * What a command of the CLI reads and writes. The binary passes the process's own streams; tests
 * pass their own, so a command runs in the test's process with its output captured.
 */
export interface CliOutput {
  write(text: string | Uint8Array): unknown;
  readonly isTTY?: boolean;
}

export interface CliIo {
  readonly stdout: CliOutput;
  readonly stderr: CliOutput;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Aborted on Ctrl-C or SIGTERM: a command ends what it started, cleans up and returns. */
  readonly signal?: AbortSignal;
}

export function processIo(signal?: AbortSignal): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signal,
  };
}

/** Writes one line (a newline is added). */
export function line(output: CliOutput, text = ''): void {
  output.write(`${text}\n`);
}

/** The exit code for a run a signal ended: 128 + SIGINT, as a shell reports it. */
export const INTERRUPTED_EXIT_CODE = 130;
