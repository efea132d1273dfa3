/**
 * Timestamps the frames on a supervisor's stdin and stdout as they pass, without touching the link:
 * the write side when the host hands a frame to the pipe, the read side when the chunk arrives.
 */
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

export interface SeenFrame {
  readonly at: number;
  readonly direction: 'in' | 'out';
  readonly kind: number;
  readonly channel: number;
  readonly bytes: number;
}

export const KIND = {
  1: 'call',
  2: 'reply',
  3: 'event',
  4: 'data',
  5: 'end',
  6: 'credit',
  7: 'reset',
} as const;

export function tapFrames(child: ChildProcess, seen: SeenFrame[]): void {
  const toSupervisor = child.stdin!;
  const write = toSupervisor.write.bind(toSupervisor) as (chunk: Buffer, ...rest: unknown[]) => boolean;
  const outgoing = headerReader('in', seen);
  toSupervisor.write = ((chunk: Buffer, ...rest: unknown[]) => {
    outgoing(chunk);
    return write(chunk, ...rest);
  }) as typeof toSupervisor.write;
  const incoming = headerReader('out', seen);
  child.stdout!.prependListener('data', (chunk: Buffer) => incoming(chunk));
}

/** Follows frame boundaries in a byte stream and records each frame header. */
function headerReader(direction: 'in' | 'out', seen: SeenFrame[]) {
  let pending: Buffer = Buffer.alloc(0);
  let skip = 0;
  return (chunk: Buffer) => {
    const at = performance.now();
    let data = chunk;
    if (skip > 0) {
      const skipped = Math.min(skip, data.byteLength);
      skip -= skipped;
      data = data.subarray(skipped);
    }
    pending = pending.byteLength ? Buffer.concat([pending, data]) : data;
    while (pending.byteLength >= 9) {
      const length = pending.readUInt32BE(0);
      seen.push({
        at,
        direction,
        kind: pending.readUInt8(4),
        channel: pending.readUInt32BE(5),
        bytes: length,
      });
      if (pending.byteLength >= 9 + length) {
        pending = pending.subarray(9 + length);
      } else {
        skip = 9 + length - pending.byteLength;
        pending = Buffer.alloc(0);
      }
    }
  };
}
