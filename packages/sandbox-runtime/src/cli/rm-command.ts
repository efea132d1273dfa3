import { checkSandboxId, SandboxOptionsError } from '@internal/sandbox-core';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { COMMON_OPTIONS, parseCommandArgs, sandboxesDirectory } from './args.js';
import { line, type CliIo } from './cli-io.js';
import { describeSandbox, findLiveSandboxes, listSandboxes, type SandboxEntry } from './sandbox-inventory.js';
import { RM_USAGE } from './usage.js';

const RM_OPTIONS = {
  ...COMMON_OPTIONS,
  all: { type: 'boolean' },
  force: { type: 'boolean', short: 'f' },
} as const;

/**
 * `rm <id…>` / `rm --all`: removes sandboxes, each its own directory under the sandboxes
 * directory and nothing else (a workspace it was given lives elsewhere and stays). One a live
 * process runs is left alone unless --force. Exits 1 when any could not be removed.
 */
export async function rmCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseCommandArgs('rm', argv, RM_OPTIONS, { positionals: true });
  const { values } = parsed;
  const positionals = [...parsed.positionals, ...(parsed.rest ?? [])];
  if (values.help) {
    io.stdout.write(RM_USAGE);
    return 0;
  }
  if (values.all === positionals.length > 0) {
    throw new SandboxOptionsError('rm: name the sandboxes to remove, or pass --all (not both).');
  }
  const directory = sandboxesDirectory(values.directory);
  let failed = false;
  let targets: SandboxEntry[];
  if (values.all) {
    targets = await listSandboxes(directory);
    if (targets.length === 0) line(io.stdout, `No sandboxes in ${directory}.`);
  } else {
    targets = [];
    for (const id of positionals) {
      // Checked before any path is built from it: no separators, no `..`.
      const sandboxId = checkSandboxId(id);
      const entry = await describeSandbox(join(directory, sandboxId), sandboxId);
      if (entry) targets.push(entry);
      else {
        line(io.stderr, `rm: no sandbox named ${sandboxId} in ${directory}.`);
        failed = true;
      }
    }
  }
  const live = await findLiveSandboxes(targets.map(target => target.path));
  for (const target of targets) {
    const holder = live.get(target.path);
    if (holder && !values.force) {
      line(
        io.stderr,
        `rm: ${target.sandboxId} is in use by process ${holder.pid} (${holder.command.slice(0, 80)}); ` +
          'stop it first, or pass --force.',
      );
      failed = true;
      continue;
    }
    await rm(target.path, { recursive: true, force: true });
    line(io.stdout, `Removed ${target.sandboxId}.`);
  }
  return failed ? 1 : 0;
}
