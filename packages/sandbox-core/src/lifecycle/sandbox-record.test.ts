import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SandboxConflictError } from '../errors.js';
import { claimSandboxDirectory } from './sandbox-record.js';

describe('claimSandboxDirectory', () => {
  const root = mkdtempSync(join(tmpdir(), 'claim-'));

  it('lets exactly one of two concurrent claims win', async () => {
    const outcomes = await Promise.allSettled(
      [0, 1].map(() => claimSandboxDirectory(join(root, 'raced'), 'raced')),
    );
    expect(outcomes.filter(outcome => outcome.status === 'fulfilled')).toHaveLength(1);
    const loser = outcomes.find(outcome => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(loser.reason).toBeInstanceOf(SandboxConflictError);
  });

  it('refuses an existing sandbox, and a directory another process has just claimed', async () => {
    const existing = join(root, 'existing');
    mkdirSync(existing);
    writeFileSync(join(existing, 'sandbox.json'), '{}');
    await expect(claimSandboxDirectory(existing, 'existing')).rejects.toBeInstanceOf(SandboxConflictError);
    const fresh = join(root, 'fresh');
    mkdirSync(fresh);
    await expect(claimSandboxDirectory(fresh, 'fresh')).rejects.toBeInstanceOf(SandboxConflictError);
  });

  it('reclaims what a crashed creation left: an old directory without a record', async () => {
    const crashed = join(root, 'crashed');
    mkdirSync(join(crashed, 'sandbox'), { recursive: true });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(crashed, anHourAgo, anHourAgo);
    await expect(claimSandboxDirectory(crashed, 'crashed')).resolves.toBeUndefined();
  });
});
