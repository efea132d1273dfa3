import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { tempDir } from './fence-test-support.js';
import { defaultSandboxesDirectory, ensureLayout, sandboxLayout } from './layout.js';

describe('sandboxLayout', () => {
  it('puts each sandbox in a directory of its own under ~/.ai-sdk-sandbox-runtime by default', () => {
    const layout = sandboxLayout('agent-1');
    const dir = join(homedir(), '.ai-sdk-sandbox-runtime', 'agent-1');
    expect(defaultSandboxesDirectory()).toBe(join(homedir(), '.ai-sdk-sandbox-runtime'));
    expect(layout).toEqual({
      sandboxId: 'agent-1',
      directory: join(homedir(), '.ai-sdk-sandbox-runtime'),
      sandboxDir: dir,
      settingsFile: join(dir, 'sandbox.json'),
      supervisorDir: join(dir, '.supervisor'),
      writableDir: join(dir, 'sandbox'),
      home: join(dir, 'sandbox', 'home'),
      tmp: join(dir, 'sandbox', 'tmp'),
      workspace: join(dir, 'sandbox', 'workspace'),
    });
  });

  it('reads ~ and relative directories as a shell would', () => {
    expect(sandboxLayout('a', '~/boxes').sandboxDir).toBe(join(homedir(), 'boxes', 'a'));
    expect(sandboxLayout('a', 'boxes').sandboxDir).toBe(join(process.cwd(), 'boxes', 'a'));
  });

  it.each(['', '.', '..', 'a/b', '../x', '-x', 'a b', 'x.', 'a'.repeat(129)])('refuses the id %j', id => {
    expect(() => sandboxLayout(id, '/srv')).toThrow(SandboxOptionsError);
  });
});

describe('ensureLayout', () => {
  it('creates the directories, private to this user, and is idempotent', async () => {
    const root = await tempDir();
    try {
      const layout = sandboxLayout('box', join(root.path, 'boxes'));
      await ensureLayout(layout);
      await ensureLayout(layout);
      for (const dir of [layout.supervisorDir, layout.home, layout.tmp, layout.workspace]) {
        expect((await stat(dir)).isDirectory()).toBe(true);
      }
      expect((await stat(layout.sandboxDir)).mode & 0o777).toBe(0o700);
    } finally {
      await root.remove();
    }
  });
});
