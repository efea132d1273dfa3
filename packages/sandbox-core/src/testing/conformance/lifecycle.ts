import { posix } from 'node:path';
import { describe } from 'vitest';
import { SETTLE_TIMEOUT, expectRejection, settle, within } from './settle.js';
import { drain } from './streams.js';
import type { ConformanceSuite } from './suite.js';

export function describeLifecycle({ check, withFreshSession }: ConformanceSuite): void {
  describe('lifecycle', () => {
    check('stop() is idempotent and destroy() works after it', [], async () => {
      await withFreshSession(async session => {
        await within(session.stop(), SETTLE_TIMEOUT, 'stop()');
        await within(session.stop(), SETTLE_TIMEOUT, 'a second stop()');
        await within(session.destroy(), SETTLE_TIMEOUT, 'destroy() after stop()');
      });
    });

    check('destroy() is idempotent', [], async () => {
      await withFreshSession(async session => {
        await within(session.destroy(), SETTLE_TIMEOUT, 'destroy()');
        await within(session.destroy(), SETTLE_TIMEOUT, 'a second destroy()');
      });
    });

    check('stop() ends running processes', ['lifecycle'], async () => {
      await withFreshSession(async session => {
        const child = await session.spawn({ command: 'sleep 1000' });
        const drained = drain(child);
        await within(session.stop(), SETTLE_TIMEOUT, 'stop()');
        await settle(child.wait(), SETTLE_TIMEOUT, 'wait() after stop()');
        await settle(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after stop()');
      });
    });

    check('calls after destroy() reject instead of hanging', ['lifecycle'], async () => {
      await withFreshSession(async session => {
        const path = posix.join(session.defaultWorkingDirectory, 'after-destroy.txt');
        await within(session.destroy(), SETTLE_TIMEOUT, 'destroy()');
        await expectRejection(() => session.run({ command: 'true' }), 'run() after destroy()');
        await expectRejection(() => session.spawn({ command: 'true' }), 'spawn() after destroy()');
        await expectRejection(() => session.readTextFile({ path }), 'readTextFile() after destroy()');
        await expectRejection(
          () => session.writeTextFile({ path, content: 'x' }),
          'writeTextFile() after destroy()',
        );
      });
    });
  });
}
