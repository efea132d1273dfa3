import { describe, expect } from 'vitest';
import { expectPreAbortedCallNotRun } from './aborts.js';
import { isAlive, waitForExit, waitForFile, waitForPid } from './processes.js';
import { SETTLE_TIMEOUT, expectRejection, settle, within } from './settle.js';
import { drain, readText } from './streams.js';
import type { ConformanceSuite } from './suite.js';

export function describeSpawn({ check, sharedSession }: ConformanceSuite): void {
  describe('spawn', () => {
    const ctx = sharedSession();

    check('returns a handle while the process runs; wait() gives its exit code', [], async () => {
      const go = ctx.path('go');
      const dir = await ctx.directory('spawn-cwd');
      const child = await within(
        ctx.session.spawn({
          command:
            'while [ ! -e "$GO" ]; do sleep 0.05; done; pwd; printf "%s" "$VALUE"; echo oops >&2; exit 5',
          env: { GO: go, VALUE: '$(not run)' },
          workingDirectory: dir,
        }),
        SETTLE_TIMEOUT,
        'spawn() of a process that waits for a file (spawn must not wait for the process)',
      );
      const stdout = readText(child.stdout);
      const stderr = readText(child.stderr);
      await ctx.session.writeTextFile({ path: go, content: '' });
      expect(await within(child.wait(), SETTLE_TIMEOUT, 'wait()')).toEqual({ exitCode: 5 });
      expect(await within(stdout, SETTLE_TIMEOUT, 'stdout to end')).toBe(`${dir}\n$(not run)`);
      expect(await within(stderr, SETTLE_TIMEOUT, 'stderr to end')).toBe('oops\n');
    });

    check('starts in defaultWorkingDirectory when no workingDirectory is given', [], async () => {
      const child = await ctx.session.spawn({ command: 'pwd' });
      const stdout = readText(child.stdout);
      await readText(child.stderr);
      expect(await child.wait()).toEqual({ exitCode: 0 });
      expect(await stdout).toBe(`${ctx.session.defaultWorkingDirectory}\n`);
    });

    check('streams stdout while the process runs', ['liveOutput'], async () => {
      const go = ctx.path('never');
      const child = await ctx.session.spawn({
        command: 'echo first; while [ ! -e "$GO" ]; do sleep 0.05; done; echo second',
        env: { GO: go },
      });
      const stderr = readText(child.stderr);
      const reader = child.stdout.getReader();
      try {
        // The process cannot end before `go` exists, so seeing `first` proves the output is live.
        let seen = '';
        const decoder = new TextDecoder();
        await within(
          (async () => {
            while (!seen.includes('first\n')) {
              const { value, done } = await reader.read();
              if (done) throw new Error(`stdout ended before "first" arrived (got ${JSON.stringify(seen)})`);
              seen += decoder.decode(value, { stream: true });
            }
          })(),
          SETTLE_TIMEOUT,
          'the first line of stdout while the process still runs',
        );
        await child.kill();
        await settle(child.wait(), SETTLE_TIMEOUT, 'wait() after kill()');
        let rest = '';
        for (;;) {
          const { value, done } = await within(reader.read(), SETTLE_TIMEOUT, 'stdout to end after kill()');
          if (done) break;
          rest += decoder.decode(value, { stream: true });
        }
        expect(seen + rest).not.toContain('second');
      } finally {
        reader.releaseLock();
        await child.kill();
      }
      await stderr;
    });

    check('kill() ends the process, ends its streams and is idempotent', [], async () => {
      const child = await ctx.session.spawn({ command: 'sleep 1000' });
      const drained = drain(child);
      await Promise.all([child.kill(), child.kill()]);
      const result = await within(child.wait(), SETTLE_TIMEOUT, 'wait() after kill()');
      expect(result.exitCode).not.toBe(0);
      await within(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after kill()');
      await within(child.kill(), SETTLE_TIMEOUT, 'a third kill()');
    });

    check('kill() after the process exited resolves', [], async () => {
      const child = await ctx.session.spawn({ command: 'exit 0' });
      await drain(child);
      expect(await child.wait()).toEqual({ exitCode: 0 });
      await within(child.kill(), SETTLE_TIMEOUT, 'kill() after exit');
    });

    check('kill() also ends the children of the process', ['realProcesses', 'killDescendants'], async () => {
      const pidFile = ctx.path('child.pid');
      const child = await ctx.session.spawn({
        command: 'sleep 1000 & echo $! > "$PIDFILE"; wait',
        env: { PIDFILE: pidFile },
      });
      const drained = drain(child);
      const pid = await waitForPid(ctx.session, pidFile);
      expect(await isAlive(ctx.session, pid), `child ${pid} alive before kill()`).toBe(true);
      await child.kill();
      await within(child.wait(), SETTLE_TIMEOUT, 'wait() after kill()');
      // A child that survived would hold stdout open.
      await within(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after kill()');
      await waitForExit(ctx.session, pid, `child ${pid} to end after kill()`);
    });

    check('an abort ends the process and wait() rejects with the reason', [], async () => {
      const started = ctx.path('spawn-abort-started');
      const controller = new AbortController();
      const child = await ctx.session.spawn({
        command: 'touch "$STARTED"; sleep 30',
        env: { STARTED: started },
        abortSignal: controller.signal,
      });
      const drained = drain(child);
      await waitForFile(ctx.session, started);
      const reason = new Error('conformance abort');
      controller.abort(reason);
      const error = await expectRejection(() => child.wait(), 'wait() after the abort');
      expect(error).toBe(reason);
      await within(drained, SETTLE_TIMEOUT, 'stdout and stderr to end after the abort');
    });

    check('rejects without running when the signal is already aborted', [], async () => {
      await expectPreAbortedCallNotRun(ctx, 'spawn', 'spawn-pre-aborted');
    });
  });
}
