import { describe, expect, it } from 'vitest';

import { workspaceProtections } from './workspace-protections.js';

const SETTINGS = [
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
  '.claude/settings.json',
  '.claude/settings.local.json',
].map(name => `/ws/${name}`);

describe('workspaceProtections', () => {
  it("protects a repository's hooks and config, and every settings file, present or not", () => {
    const present: Record<string, 'file' | 'directory'> = { '/ws/.git': 'directory', '/ws/.bashrc': 'file' };
    expect(workspaceProtections('/ws', path => present[path])).toEqual([
      '/ws/.git/hooks',
      '/ws/.git/config',
      ...SETTINGS,
    ]);
  });

  it("protects a worktree's .git file itself", () => {
    expect(workspaceProtections('/ws', path => (path === '/ws/.git' ? 'file' : undefined))).toEqual([
      '/ws/.git',
      ...SETTINGS,
    ]);
  });

  it('protects only the settings files in a directory that is no repository', () => {
    expect(workspaceProtections('/ws', () => undefined)).toEqual(SETTINGS);
  });
});
