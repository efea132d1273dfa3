import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, realpathSync, rmdirSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, isAbsolute } from 'node:path';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { SrtError } from '../srt-error.js';
import { buildFenceEnv } from './fence-env.js';
import { openDescriptorsAboveStderr, withDescriptorsClosed } from './inherited-descriptors.js';
import { removePlantedLinks } from './planted-links.js';
import { protectWorkspace } from './workspace-protections.js';
import { ensureLayout } from './layout.js';
import { privatizeTmp } from './private-tmp.js';
import type { SrtRuntimeSettings } from './runtime-settings.js';
import { buildFenceConfig, hostView, type FenceConfig, type FenceSettings } from './srt-config.js';
import { srtRuntime, type SrtRuntime } from './srt-runtime.js';
import { quoteWords } from './shell-words.js';

export interface FenceSpec extends FenceSettings {
  /** srt's process-wide settings; must match those of the process's other sandboxes. */
  readonly runtime?: SrtRuntimeSettings;
  /** Variables added to the fenced environment (after the defaults, which they may override). */
  readonly env?: Readonly<Record<string, string>>;
  /** The node binary the fenced argv runs with, if any (default: this process's). Its install stays readable. */
  readonly nodePath?: string;
  /** The working directory of the process. Default: the workspace. */
  readonly cwd?: string;
  readonly signal?: AbortSignal;
  /** The srt runtime to use (default: the process's). */
  readonly srt?: SrtRuntime;
}

export interface FencedProcess {
  /** stdin, stdout and stderr are pipes; nothing but the process writes to stdout. */
  readonly child: ChildProcess;
  /** srt's id for this process: its allow list is registered under it (see SrtRuntime.setSandboxDomains). */
  readonly commandId: string;
  /**
   * Ends the process if it still runs (SIGKILL) and, once it has exited, releases what srt keeps
   * for it (its allow list, the mount points of its denies). Also runs by itself when it exits.
   */
  cleanup(): void;
  /** Whether the sandbox has an allow list of its own (see SrtRuntime.isolatesNetwork). */
  readonly isolatesNetwork: boolean;
  /** Whether /tmp inside is the sandbox's own tmp directory (Linux), or the host's, read-only. */
  readonly privateTmp: boolean;
  /** TMPDIR inside. */
  readonly tmpdir: string;
  /** The rules it runs under. */
  readonly config: FenceConfig;
}

/**
 * Starts `argv` (one long-running process, such as the supervisor) fenced by srt with the rules
 * of `spec`: srt is started first if this is the process's first sandbox.
 */
export async function launchFenced(spec: FenceSpec, argv: readonly string[]): Promise<FencedProcess> {
  if (
    !Array.isArray(argv) ||
    argv.length === 0 ||
    argv.some(word => typeof word !== 'string' || word.includes('\0'))
  ) {
    throw new SandboxOptionsError('launchFenced needs a non-empty argv of strings without NUL bytes.');
  }
  spec.signal?.throwIfAborted();
  const runtime = spec.srt ?? srtRuntime();
  await runtime.ensure(spec.runtime);
  const host = hostView(realpathSync(spec.nodePath ?? process.execPath));
  const config = protectWorkspace(buildFenceConfig(spec, host));
  const { layout } = spec;
  await ensureLayout(layout);
  await removePlantedLinks(layout);
  for (const [path, option] of [
    [config.workspace, 'workspace'],
    ...(spec.cwd === undefined ? [] : [[spec.cwd, 'cwd']]),
  ] as const) {
    if (!existsSync(path))
      throw new SandboxOptionsError(`${option} ${path} does not exist: create it first.`);
  }

  const commandId = runtime.newCommandId();
  runtime.setSandboxDomains(commandId, config.allowedDomains);
  let wrapped: string;
  try {
    wrapped = await runtime.wrap(quoteWords(argv), config.customConfig, commandId, spec.signal);
  } catch (error) {
    runtime.unregister(commandId);
    if (spec.signal?.aborted) throw spec.signal.reason;
    throw new SrtError(`srt refused to wrap the sandbox's process: ${(error as Error).message}`, 'refused', {
      cause: error,
    });
  }

  let command = wrapped;
  let privateTmp = false;
  let tmpdir = layout.tmp;
  let stubs: string[] = [];
  if (process.platform === 'linux') {
    // What the sandbox reads through the root bind but does not write would vanish behind the
    // private /tmp when it lives under the host's /tmp: its supervisor, read-only workspaces, and the
    // programs it runs from the host, node and srt's seccomp helper (a checkout or an npx cache in /tmp).
    const readOnly = [
      layout.supervisorDir,
      ...(spec.readOnlyWorkspaces ?? []),
      ...(spec.allowRead ?? []),
      dirname(dirname(host.nodePath)),
      srtPackageRoot(),
      ...toolDirectories(process.env.PATH),
    ].filter(path => !layout.sandboxDir.startsWith(`${path}/`));
    const edit = privatizeTmp(wrapped, layout.tmp, [...runtime.keepPaths(), ...readOnly]);
    if (edit === undefined) {
      runtime.manager.cleanupAfterCommand();
      runtime.unregister(commandId);
      throw new SrtError(
        'srt wrapped the process in a command this version of ai-sdk-sandbox-runtime cannot read; ' +
          'install the @anthropic-ai/sandbox-runtime version it was released with.',
        'refused',
      );
    }
    command = edit.command;
    if (edit.privateTmp) {
      privateTmp = true;
      tmpdir = '/tmp';
      stubs = edit.stubs;
    }
  }

  const env = buildFenceEnv({ hostEnv: process.env, home: layout.home, tmpdir, extra: spec.env });
  // bash runs srt's command line and execs bwrap in its place (a single command), so bwrap's
  // --die-with-parent ties the sandbox to this process. Descriptors this process inherited are
  // closed on the way (see inherited-descriptors.ts).
  const child = spawn('/bin/bash', ['-c', withDescriptorsClosed(command, openDescriptorsAboveStderr())], {
    cwd: spec.cwd ?? config.workspace,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    runtime.manager.cleanupAfterCommand();
    runtime.unregister(commandId);
    removeStubs(stubs, layout.tmp);
  };
  child.once('exit', release);
  child.once('error', () => {
    // A spawn that failed never emits 'exit'.
    if (child.pid === undefined) release();
  });

  return {
    child,
    commandId,
    isolatesNetwork: runtime.isolatesNetwork,
    privateTmp,
    tmpdir,
    config,
    cleanup() {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        child.kill('SIGKILL');
      } else {
        release();
      }
    },
  };
}

/**
 * The PATH's directories, for the tools the sandbox runs from the host (pnpm, say). For a
 * node_modules/.bin, the whole node_modules: its entries are links into the packages beside it.
 */
function toolDirectories(path: string | undefined): string[] {
  const directories: string[] = [];
  for (const entry of (path ?? '').split(':')) {
    if (!isAbsolute(entry) || entry === '/tmp') continue;
    const directory = basename(entry) === '.bin' ? dirname(entry) : entry;
    directories.push(directory);
    try {
      directories.push(realpathSync(directory));
    } catch {
      // not there: nothing to keep
    }
  }
  return directories;
}

/** srt's own package directory (its vendored seccomp helper runs inside the sandbox), real path. */
function srtPackageRoot(): string {
  const entry = realpathSync(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime'));
  return dirname(dirname(entry)); // <root>/dist/index.js
}

/** Removes the empty mount points bwrap made in the sandbox's tmp directory, and their empty parents. */
function removeStubs(stubs: readonly string[], tmpRoot: string): void {
  for (const stub of stubs) {
    try {
      const stat = lstatSync(stub);
      if (stat.isFile() && stat.size === 0) unlinkSync(stub);
      else if (stat.isDirectory()) rmdirSync(stub);
      else continue;
      for (let dir = dirname(stub); dir.startsWith(`${tmpRoot}/`); dir = dirname(dir)) rmdirSync(dir);
    } catch {
      // Not empty, or not there: the sandbox's to keep.
    }
  }
}
