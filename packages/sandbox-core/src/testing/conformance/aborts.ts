import { expect } from 'vitest';
import { expectRejection } from './settle.js';
import type { SharedSession } from './suite.js';

/**
 * Calls run() or spawn() with a signal that is already aborted: the call must reject, and its command
 * (which would create a marker file at a fresh `ctx.path(label)`) must never run.
 */
export async function expectPreAbortedCallNotRun(
  ctx: SharedSession,
  method: 'run' | 'spawn',
  label: string,
): Promise<void> {
  const marker = ctx.path(label);
  const controller = new AbortController();
  controller.abort();
  await expectRejection(
    () =>
      ctx.session[method]({
        command: 'touch "$MARKER"',
        env: { MARKER: marker },
        abortSignal: controller.signal,
      }),
    `${method}() with an aborted signal`,
  );
  // Give a command that slipped through the time to create its marker before looking.
  await ctx.session.run({ command: 'sleep 0.2' });
  expect(await ctx.session.readBinaryFile({ path: marker })).toBeNull();
}
