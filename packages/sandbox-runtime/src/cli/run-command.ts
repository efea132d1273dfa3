import { SandboxOptionsError } from '@internal/sandbox-core';
import { parseCommandArgs, SANDBOX_OPTIONS, sandboxSpec } from './args.js';
import type { CliIo } from './cli-io.js';
import { openSandbox } from './open-sandbox.js';
import { commandLineOf, streamCommand } from './stream-command.js';
import { RUN_USAGE } from './usage.js';

/** `run [options] -- <command…>`: one command in a sandbox; returns the command's exit code. */
export async function runCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, rest } = parseCommandArgs('run', argv, SANDBOX_OPTIONS);
  if (values.help) {
    io.stdout.write(RUN_USAGE);
    return 0;
  }
  if (rest === undefined || rest.length === 0) {
    throw new SandboxOptionsError(
      'run: put the command after --, as in `ai-sdk-sandbox-runtime run -- ls -la`.',
    );
  }
  const sandbox = await openSandbox(sandboxSpec(values, io.cwd), io);
  try {
    return await streamCommand(sandbox.session, commandLineOf(rest), io);
  } finally {
    await sandbox.close();
  }
}
