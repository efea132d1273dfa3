/**
 * For the profiling scripts: sees every child process the sandbox packages start, by replacing
 * child_process.spawn before they are imported (ESM named imports of builtins follow
 * syncBuiltinESMExports). Lets a script timestamp the supervisor link's frames from outside the
 * library, or add flags to the fenced supervisor's node command line.
 */
import type { ChildProcess, spawn } from 'node:child_process';
import { createRequire, syncBuiltinESMExports } from 'node:module';

type Spawn = typeof spawn;

const require = createRequire(import.meta.url);
const childProcess = require('node:child_process') as { spawn: Spawn };
const original = childProcess.spawn;

export interface SpawnHook {
  /** May rewrite the argv before the spawn. */
  rewrite?(file: string, args: string[]): [string, string[]];
  /** Sees the child. */
  spawned?(child: ChildProcess, file: string, args: readonly string[]): void;
}

const hooks: SpawnHook[] = [];

export function installSpawnHook(hook: SpawnHook): void {
  hooks.push(hook);
  if (hooks.length > 1) return;
  childProcess.spawn = function (this: unknown, file: string, args?: unknown, options?: unknown) {
    let argv = Array.isArray(args) ? (args as string[]) : [];
    let program = file;
    for (const each of hooks) if (each.rewrite) [program, argv] = each.rewrite(program, argv);
    const child = Array.isArray(args)
      ? (original as (...a: unknown[]) => ChildProcess).call(this, program, argv, options)
      : (original as (...a: unknown[]) => ChildProcess).call(this, program, args, options);
    for (const each of hooks) each.spawned?.(child, program, argv);
    return child;
  } as Spawn;
  syncBuiltinESMExports();
}

/**
 * SUPERVISOR_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp": adds node flags to the supervisor's command
 * line, fenced or not (the srt package does not pass NODE_OPTIONS through the fence).
 */
export function addSupervisorFlags(flags = process.env.SUPERVISOR_NODE_FLAGS): void {
  if (!flags) return;
  installSpawnHook({
    rewrite(file, args) {
      return [
        file,
        args.map(arg => arg.replace(/(\/node)(['"]*) ((?:\S*\/)?supervisor\.js)/g, `$1$2 ${flags} $3`)),
      ];
    },
  });
}
