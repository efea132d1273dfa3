import { describe, expect, it } from 'vitest';

import { workspaceProtections } from './workspace-protections.js';

describe('workspaceProtections', () => {
  it("protects a repository's hooks and config, and the settings files that exist", () => {
    const present: Record<string, 'file' | 'directory'> = {
      '/ws/.git': 'directory',
      '/ws/.bashrc': 'file',
      '/ws/.vscode': 'directory',
    };
    expect(workspaceProtections('/ws', path => present[path])).toEqual([
      '/ws/.git/hooks',
      '/ws/.git/config',
      '/ws/.bashrc',
      '/ws/.vscode',
    ]);
  });

  it("protects a worktree's .git file itself", () => {
    expect(workspaceProtections('/ws', path => (path === '/ws/.git' ? 'file' : undefined))).toEqual([
      '/ws/.git',
    ]);
  });

  it('adds nothing for a plain directory', () => {
    expect(workspaceProtections('/ws', () => undefined)).toEqual([]);
  });
});
