// Property-based tests of the frame decoder, the first code to touch bytes from inside the sandbox:
// whatever arrives, in whatever pieces, it returns frames or throws FrameFormatError, and never holds
// more than one unfinished frame.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  encodeFrame,
  FRAME_HEADER_BYTES,
  FrameDecoder,
  FrameFormatError,
  FrameKind,
  type Frame,
} from './frame.js';

const KINDS = Object.values(FrameKind);
const MAX_PAYLOAD = 4096;

/** `bytes` cut into pieces at the given points. */
function split(bytes: Uint8Array, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map(cut => cut % (bytes.byteLength + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of [...points, bytes.byteLength]) {
    pieces.push(Buffer.from(bytes.subarray(start, point)));
    start = point;
  }
  return pieces;
}

const frameArbitrary = fc.record({
  kind: fc.constantFrom(...KINDS),
  channel: fc.integer({ min: 0, max: 0xffff_ffff }),
  payload: fc.uint8Array({ maxLength: MAX_PAYLOAD }),
});

describe('FrameDecoder, fuzzed', () => {
  it('gives back exactly the frames that were sent, however the bytes are cut', () => {
    fc.assert(
      fc.property(
        fc.array(frameArbitrary, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (frames, cuts) => {
          const bytes = Buffer.concat(frames.map(f => encodeFrame(f.kind, f.channel, f.payload)));
          const decoder = new FrameDecoder(MAX_PAYLOAD);
          const decoded: Frame[] = [];
          for (const piece of split(bytes, cuts)) decoded.push(...decoder.push(piece));
          expect(
            decoded.map(f => ({ kind: f.kind, channel: f.channel, payload: new Uint8Array(f.payload) })),
          ).toEqual(frames);
          expect(decoder.bufferedBytes).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('on arbitrary bytes, only returns frames or throws FrameFormatError, and buffers at most one frame', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 20_000 }),
        fc.array(fc.nat(), { maxLength: 30 }),
        (bytes, cuts) => {
          const decoder = new FrameDecoder(MAX_PAYLOAD);
          try {
            for (const piece of split(bytes, cuts)) {
              for (const frame of decoder.push(piece)) {
                expect(KINDS).toContain(frame.kind);
                expect(frame.payload.byteLength).toBeLessThanOrEqual(MAX_PAYLOAD);
              }
              expect(decoder.bufferedBytes).toBeLessThan(FRAME_HEADER_BYTES + MAX_PAYLOAD);
            }
          } catch (error) {
            expect(error).toBeInstanceOf(FrameFormatError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a header announcing more than the limit before its payload arrives', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MAX_PAYLOAD + 1, max: 0xffff_ffff }),
        fc.constantFrom(...KINDS),
        (length, kind) => {
          const head = Buffer.alloc(FRAME_HEADER_BYTES);
          head.writeUInt32BE(length, 0);
          head.writeUInt8(kind, 4);
          expect(() => new FrameDecoder(MAX_PAYLOAD).push(head)).toThrow(FrameFormatError);
        },
      ),
    );
  });

  it('refuses unknown kinds', () => {
    const known = new Set<number>(KINDS);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }).filter(kind => !known.has(kind)),
        kind => {
          const head = Buffer.alloc(FRAME_HEADER_BYTES);
          head.writeUInt8(kind, 4);
          expect(() => new FrameDecoder().push(head)).toThrow(FrameFormatError);
        },
      ),
    );
  });
});
