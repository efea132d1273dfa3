import { posix } from 'node:path';
import { describe, expect } from 'vitest';
import type { ConformanceSuite } from './suite.js';

export function describeIdentity({ check, sharedSession, withFreshSession }: ConformanceSuite): void {
  describe('identity', () => {
    const ctx = sharedSession();

    check('description is a non-empty string', [], async () => {
      expect(typeof ctx.session.description).toBe('string');
      expect(ctx.session.description.trim()).not.toBe('');
    });

    check('id is a non-empty string', [], async () => {
      expect(typeof ctx.session.id).toBe('string');
      expect(ctx.session.id.trim()).not.toBe('');
    });

    check('defaultWorkingDirectory is an absolute path to an existing directory', [], async () => {
      const dwd = ctx.session.defaultWorkingDirectory;
      expect(posix.isAbsolute(dwd), `defaultWorkingDirectory ${JSON.stringify(dwd)}`).toBe(true);
      const result = await ctx.session.run({ command: '[ -d "$DIR" ] && echo yes', env: { DIR: dwd } });
      expect(result.stdout).toBe('yes\n');
    });

    check('two sessions have different ids', [], async () => {
      await withFreshSession(async other => {
        expect(other.id).not.toBe(ctx.session.id);
      });
    });
  });
}
