import { SandboxOptionsError } from '@internal/sandbox-core';
import { INTERRUPTED_EXIT_CODE, line, type CliIo } from './cli-io.js';
import { demoCommand } from './demo-command.js';
import { doctorCommand } from './doctor-command.js';
import { listCommand } from './list-command.js';
import { rmCommand } from './rm-command.js';
import { runCommand } from './run-command.js';
import { shellCommand } from './shell-command.js';
import { MAIN_USAGE } from './usage.js';

const COMMANDS: Record<string, (argv: readonly string[], io: CliIo) => Promise<number>> = {
  doctor: doctorCommand,
  run: runCommand,
  shell: shellCommand,
  list: listCommand,
  ls: listCommand,
  rm: rmCommand,
  demo: demoCommand,
};

/** Exit code for wrong arguments, as most command-line tools use. */
export const USAGE_EXIT_CODE = 2;

/** Runs the command `argv` names and returns the exit code; errors are printed, not thrown. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic !== undefined && COMMANDS[topic]) return COMMANDS[topic](['--help'], io);
    io.stdout.write(MAIN_USAGE);
    return name === undefined ? USAGE_EXIT_CODE : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    line(io.stderr, `Unknown command ${JSON.stringify(name)}.`);
    io.stderr.write(MAIN_USAGE);
    return USAGE_EXIT_CODE;
  }
  try {
    return await command(rest, io);
  } catch (error) {
    if (error instanceof SandboxOptionsError) {
      line(io.stderr, error.message);
      return USAGE_EXIT_CODE;
    }
    if (io.signal?.aborted) {
      line(io.stderr, 'Stopped.');
      return INTERRUPTED_EXIT_CODE;
    }
    line(io.stderr, `${name}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
