import { mkdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import { checkSandboxId, SandboxOptionsError } from '@internal/sandbox-core';

/**
 * Where one sandbox lives on the host:
 *
 *   <directory>/<sandboxId>/        sandboxDir
 *   ├── sandbox.json                settingsFile   (hidden inside: it may hold credentials)
 *   ├── .supervisor/                supervisorDir  (readable inside, not writable)
 *   └── sandbox/                    writableDir    (all the sandbox may write)
 *       ├── home/                   HOME
 *       ├── tmp/                    /tmp inside (Linux), TMPDIR
 *       └── workspace/              the working directory when none is given
 */
export interface SandboxLayout {
  readonly sandboxId: string;
  readonly directory: string;
  readonly sandboxDir: string;
  readonly settingsFile: string;
  readonly supervisorDir: string;
  readonly writableDir: string;
  readonly home: string;
  readonly tmp: string;
  readonly workspace: string;
}

/** `~/.ai-sdk-sandbox-runtime`, read when asked so a changed HOME counts. */
export function defaultSandboxesDirectory(): string {
  return join(homedir(), '.ai-sdk-sandbox-runtime');
}

/** Sandbox ids name directories: the core's rule, so both packages accept the same ids. */
export function validateSandboxId(sandboxId: string): void {
  checkSandboxId(sandboxId);
}

/** The paths of sandbox `sandboxId` under `directory`; computes, creates nothing. */
export function sandboxLayout(
  sandboxId: string,
  directory: string = defaultSandboxesDirectory(),
): SandboxLayout {
  validateSandboxId(sandboxId);
  if (typeof directory !== 'string' || directory === '') {
    throw new SandboxOptionsError('directory must be a non-empty path.');
  }
  // A leading ~ is the user's home, as a shell would read it; a relative path is from the cwd.
  const root = resolve(
    directory === '~' || directory.startsWith('~/') ? homedir() + directory.slice(1) : directory,
  );
  const sandboxDir = join(root, sandboxId);
  const writableDir = join(sandboxDir, 'sandbox');
  return {
    sandboxId,
    directory: root,
    sandboxDir,
    settingsFile: join(sandboxDir, 'sandbox.json'),
    supervisorDir: join(sandboxDir, '.supervisor'),
    writableDir,
    home: join(writableDir, 'home'),
    tmp: join(writableDir, 'tmp'),
    workspace: join(writableDir, 'workspace'),
  };
}

/**
 * Creates the directories of the layout (not sandbox.json, which its owner writes). The sandbox
 * directory is private to this user: the sandbox's home holds the harness's state.
 */
export async function ensureLayout(layout: SandboxLayout): Promise<void> {
  await mkdir(layout.directory, { recursive: true, mode: 0o700 });
  await mkdir(layout.sandboxDir, { recursive: true, mode: 0o700 });
  await Promise.all([
    mkdir(layout.supervisorDir, { recursive: true, mode: 0o700 }),
    mkdir(layout.home, { recursive: true, mode: 0o700 }),
    mkdir(layout.tmp, { recursive: true, mode: 0o700 }),
    mkdir(layout.workspace, { recursive: true, mode: 0o700 }),
  ]);
}
