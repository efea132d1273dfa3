import { describe, expect } from 'vitest';
import { SETTLE_TIMEOUT, within } from './settle.js';
import type { ConformanceSuite } from './suite.js';

/** Each shape of background job, and a command that leaves it running and records its pid. */
const BACKGROUND_JOBS = [
  ['sleep 30 >/dev/null 2>&1 &', 'sleep 30 >/dev/null 2>&1 & echo $! > "$PIDFILE"; echo started'],
  ['(sleep 30) & (keeps stdout open)', '(sleep 30) & echo $! > "$PIDFILE"; echo started'],
] as const;

export function describeBackgroundJobs({ check, sharedSession }: ConformanceSuite): void {
  describe('background jobs', () => {
    const ctx = sharedSession();

    for (const [shape, command] of BACKGROUND_JOBS) {
      check(
        `run() returns when the shell exits, not when \`${shape}\` ends`,
        ['backgroundJobs'],
        async () => {
          const pidFile = ctx.path('job.pid');
          try {
            const result = await within(
              ctx.session.run({ command, env: { PIDFILE: pidFile } }),
              SETTLE_TIMEOUT,
              'run() of a command that leaves a 30 s background job',
            );
            expect(result).toMatchObject({ exitCode: 0, stdout: 'started\n' });
          } finally {
            await ctx.session
              .run({ command: 'kill "$(cat "$PIDFILE")" 2>/dev/null; true', env: { PIDFILE: pidFile } })
              .then(undefined, () => undefined);
          }
        },
      );
    }
  });
}
