import { join } from 'node:path';
import { COMMON_OPTIONS, parseCommandArgs, sandboxesDirectory } from './args.js';
import { line, type CliIo } from './cli-io.js';
import { findLiveSandboxes, listSandboxes } from './sandbox-inventory.js';
import { formatBytes, formatTime, renderTable } from './table.js';
import { LIST_USAGE } from './usage.js';

const LIST_OPTIONS = { ...COMMON_OPTIONS, json: { type: 'boolean' } } as const;

/** `list`: the sandboxes under the directory, most recently used first. */
export async function listCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('list', argv, LIST_OPTIONS);
  if (values.help) {
    io.stdout.write(LIST_USAGE);
    return 0;
  }
  const directory = sandboxesDirectory(values.directory);
  const sandboxes = await listSandboxes(directory);
  const live = await findLiveSandboxes(sandboxes.map(sandbox => sandbox.path));
  const rows = sandboxes.map(sandbox => ({
    id: sandbox.sandboxId,
    path: sandbox.path,
    size: sandbox.size,
    lastUsed: sandbox.lastUsed.toISOString(),
    running: live.has(sandbox.path),
    pid: live.get(sandbox.path)?.pid,
    // A sandbox without a workspace of its own works in its sandbox/workspace.
    workspace: sandbox.record
      ? (sandbox.record.workspace ?? join(sandbox.path, 'sandbox', 'workspace'))
      : undefined,
    problem: sandbox.problem,
  }));
  if (values.json) {
    line(io.stdout, JSON.stringify({ directory, sandboxes: rows }, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    line(io.stdout, `No sandboxes in ${directory}.`);
    return 0;
  }
  const table = renderTable([
    ['SANDBOX', 'SIZE', 'LAST USED', 'STATE', 'WORKSPACE'],
    ...rows.map(row => [
      row.id,
      formatBytes(row.size),
      formatTime(new Date(row.lastUsed)),
      row.running ? `running (pid ${row.pid})` : 'stopped',
      row.workspace ?? `? (${row.problem})`,
    ]),
  ]);
  line(io.stdout, `Sandboxes in ${directory}:`);
  for (const text of table) line(io.stdout, text);
  return 0;
}
