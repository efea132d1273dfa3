import { describe, expect, it } from 'vitest';

import { WORKSPACE_SETTINGS, workspaceProtections } from './workspace-protections.js';

const SETTINGS = WORKSPACE_SETTINGS.map(name => `/ws/${name}`);

describe('workspaceProtections', () => {
  it("covers the settings host tools act on, srt's and Claude Code's", () => {
    expect(WORKSPACE_SETTINGS).toEqual(
      expect.arrayContaining([
        '.bashrc',
        '.vscode',
        '.mcp.json',
        '.claude/settings.json',
        '.claude/settings.local.json',
      ]),
    );
  });

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
