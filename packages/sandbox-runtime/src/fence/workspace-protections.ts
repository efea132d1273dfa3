import { lstatSync } from 'node:fs';
import { join } from 'node:path';

import type { FenceConfig } from './srt-config.js';

/*
 * srt always keeps a few paths read-only, those a program on the host runs or reads its settings
 * from: git's hooks and config, shell rc files, editor task files. It finds them around the host
 * process's working directory, though, not the sandbox's workspace, which is where the agent
 * writes. So they are added for the workspace here, by the same rules:
 *   - `.git/hooks` and `.git/config` of a repository (`.git` a directory), or `.git` itself when it
 *     is a file (a worktree's pointer to its repository);
 *   - the shell, git and editor settings srt names, whether they exist or not (see below).
 */
export const WORKSPACE_SETTINGS = [
  '.gitconfig',
  '.gitmodules',
  '.bashrc',
  '.bash_profile',
  '.zshrc',
  '.zprofile',
  '.profile',
  '.ripgreprc',
  '.mcp.json',
  '.vscode',
  '.idea',
  '.claude/commands',
  '.claude/agents',
  // Not in srt's list, but Claude Code on the host runs the hooks these settings name.
  '.claude/settings.json',
  '.claude/settings.local.json',
];

type Kind = 'file' | 'directory' | 'other' | undefined;

const kindOf = (path: string): Kind => {
  try {
    const stat = lstatSync(path);
    return stat.isDirectory() ? 'directory' : stat.isFile() ? 'file' : 'other';
  } catch {
    return undefined;
  }
};

/** The paths of `workspace` srt would deny writing to were it the working directory. */
export function workspaceProtections(workspace: string, kind: (path: string) => Kind = kindOf): string[] {
  const paths: string[] = [];
  const git = join(workspace, '.git');
  const gitKind = kind(git);
  if (gitKind === 'directory') paths.push(join(git, 'hooks'), join(git, 'config'));
  else if (gitKind !== undefined) paths.push(git);
  // Missing ones too, as srt does around its own working directory: it stands an empty
  // placeholder there while the sandbox runs (removed when it stops), so that the agent cannot create
  // a settings file a host tool would later read and act on.
  for (const name of WORKSPACE_SETTINGS) paths.push(join(workspace, name));
  return paths;
}

/** `config` with the workspace's protections added to its write denies. */
export function protectWorkspace(config: FenceConfig, kind?: (path: string) => Kind): FenceConfig {
  const { filesystem } = config.customConfig;
  const denyWrite = [...new Set([...filesystem.denyWrite, ...workspaceProtections(config.workspace, kind)])];
  return { ...config, customConfig: { ...config.customConfig, filesystem: { ...filesystem, denyWrite } } };
}
