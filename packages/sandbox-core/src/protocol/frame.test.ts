import { describe, expect, it } from 'vitest';
import {
  encodeCredit,
  encodeFrame,
  encodeJsonFrame,
  FrameDecoder,
  FrameFormatError,
  FrameKind,
  readCredit,
} from './frame.js';

describe('FrameDecoder', () => {
  const frames = [
    encodeJsonFrame(FrameKind.Call, 1, { op: 'ping' }),
    encodeFrame(FrameKind.Data, 7, Buffer.alloc(70_000, 0xab)),
    encodeFrame(FrameKind.End, 7),
    encodeCredit(9, 123_456),
  ];
  const stream = Buffer.concat(frames);

  it.each([1, 2, 5, 9, 64, 1000, 65_536, stream.length])(
    'gives the same frames whatever the chunk size (%i bytes)',
    size => {
      const decoder = new FrameDecoder();
      const decoded = [];
      for (let offset = 0; offset < stream.length; offset += size) {
        decoded.push(...decoder.push(stream.subarray(offset, offset + size)));
      }
      expect(decoded.map(frame => [frame.kind, frame.channel, frame.payload.length])).toEqual([
        [FrameKind.Call, 1, frames[0]!.length - 9],
        [FrameKind.Data, 7, 70_000],
        [FrameKind.End, 7, 0],
        [FrameKind.Credit, 9, 4],
      ]);
      expect(decoded[1]!.payload.every(byte => byte === 0xab)).toBe(true);
      expect(readCredit(decoded[3]!)).toBe(123_456);
      expect(decoder.bufferedBytes).toBe(0);
    },
  );

  it('refuses an oversized frame from its header alone, before buffering it', () => {
    const decoder = new FrameDecoder(1024);
    const header = encodeFrame(FrameKind.Data, 1, Buffer.alloc(2048)).subarray(0, 9);
    expect(() => decoder.push(header)).toThrow(FrameFormatError);
  });
});
