// Property-based tests of the host's link against a hostile supervisor: arbitrary bytes and
// arbitrary well-framed messages arrive while calls, reads and processes are pending. The host never
// crashes (no throw, no unhandled rejection), every pending operation settles once the supervisor's
// stream ends, only with typed errors, and a stream never holds more than the credit it granted.
import { PassThrough } from 'node:stream';

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SupervisorLinkError } from '../errors.js';
import { encodeFrame, encodeJsonFrame, FrameKind } from '../protocol/frame.js';
import { INITIAL_STREAM_CREDIT } from '../protocol/messages.js';
import { RemoteError } from './remote-error.js';
import { SupervisorLink } from './supervisor-link.js';

const json = fc.oneof(
  fc.record({ ok: fc.constant(true), value: fc.anything() }),
  fc.record({ ok: fc.constant(true), value: fc.record({ found: fc.boolean(), size: fc.integer() }) }),
  fc.record({ ok: fc.constant(true), value: fc.record({ pid: fc.integer() }) }),
  fc.record({ ok: fc.constant(false), error: fc.record({ code: fc.string(), message: fc.string() }) }),
  fc.record({ type: fc.constant('exit'), exitCode: fc.integer() }),
  fc.anything(),
);

/** A message as a hostile supervisor might send it: well framed, its content anything. */
const message = fc.oneof(
  fc
    .record({
      kind: fc.constantFrom(FrameKind.Reply, FrameKind.Event),
      channel: fc.integer({ min: 0, max: 12 }),
      value: json,
    })
    .map(m =>
      // JSON.stringify(undefined) is undefined: send `null` then, as a supervisor could.
      m.value === undefined
        ? encodeFrame(m.kind, m.channel, Buffer.from('null'))
        : encodeJsonFrame(m.kind, m.channel, m.value),
    ),
  fc
    .record({ channel: fc.integer({ min: 0, max: 12 }), size: fc.integer({ min: 0, max: 300_000 }) })
    .map(m => encodeFrame(FrameKind.Data, m.channel, Buffer.alloc(m.size, 0x61))),
  fc
    .record({
      kind: fc.constantFrom(FrameKind.End, FrameKind.Reset, FrameKind.Call),
      channel: fc.integer({ min: 0, max: 12 }),
      payload: fc.uint8Array({ maxLength: 64 }),
    })
    .map(m => encodeFrame(m.kind, m.channel, m.payload)),
  fc
    .record({ channel: fc.integer({ min: 0, max: 12 }), credit: fc.integer({ min: 0, max: 0xffff_ffff }) })
    .map(m => {
      const payload = Buffer.alloc(4);
      payload.writeUInt32BE(m.credit, 0);
      return encodeFrame(FrameKind.Credit, m.channel, payload);
    }),
  fc.uint8Array({ minLength: 1, maxLength: 64 }).map(bytes => Buffer.from(bytes)),
);

const typed = (error: unknown) => error instanceof SupervisorLinkError || error instanceof RemoteError;

/** Reads a stream to its end, counting bytes; the error it ends with, if any. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<{ bytes: number; error?: unknown }> {
  let bytes = 0;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { bytes };
      bytes += value.byteLength;
    }
  } catch (error) {
    return { bytes, error };
  }
}

async function exercise(messages: Buffer[]): Promise<void> {
  const fromSupervisor = new PassThrough();
  const toSupervisor = new PassThrough();
  toSupervisor.resume(); // the host's calls go nowhere
  const link = new SupervisorLink({ fromSupervisor, toSupervisor });
  const outcomes: Array<Promise<unknown>> = [];
  const settle = (promise: Promise<unknown>) =>
    outcomes.push(
      promise.then(
        () => undefined,
        error => expect(typed(error), String(error)).toBe(true),
      ),
    );
  settle(link.ping());
  settle(
    link.readFile('/x').then(async stream => {
      if (!stream) return;
      const { bytes, error } = await drain(stream);
      if (error) expect(typed(error), String(error)).toBe(true);
      expect(bytes).toBeLessThanOrEqual(64 * INITIAL_STREAM_CREDIT);
    }),
  );
  settle(
    link.spawn({ command: 'x' }).then(async child => {
      const results = await Promise.allSettled([drain(child.stdout), drain(child.stderr), child.exited]);
      for (const result of results) if (result.status === 'rejected') expect(typed(result.reason)).toBe(true);
    }),
  );
  settle(link.writeFile('/y', [Buffer.alloc(100_000)]));
  settle(link.killAll());
  for (const bytes of messages) fromSupervisor.write(bytes);
  fromSupervisor.end();
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>(resolve => (timer = setTimeout(() => resolve('hung'), 5_000)));
  const result = await Promise.race([Promise.all(outcomes), hung]);
  clearTimeout(timer);
  expect(result, 'an operation never settled after the supervisor went away').not.toBe('hung');
  expect(link.isOpen).toBe(false);
}

describe('SupervisorLink, fuzzed', () => {
  it('settles every pending operation with a value or a typed error, whatever well-framed messages arrive', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 25 }), messages => exercise(messages)),
      {
        numRuns: 150,
      },
    );
  });

  it('does the same for arbitrary bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 2048 }), { maxLength: 10 }), chunks =>
        exercise(chunks.map(chunk => Buffer.from(chunk))),
      ),
      { numRuns: 150 },
    );
  });
});
