/**
 * The wire format between the host and the supervisor: a stream of length-prefixed frames.
 *
 *   offset 0  u32 BE  payload length (header excluded)
 *   offset 4  u8      frame kind
 *   offset 5  u32 BE  channel: a call id (CALL, REPLY, EVENT) or a stream id (DATA, END, CREDIT, RESET)
 *   offset 9  ...     payload
 *
 * The decoder is the first thing that touches bytes coming out of the sandbox, so it trusts nothing:
 * a length over the limit or an unknown kind is an error, and it never buffers more than one frame.
 */

export const FRAME_HEADER_BYTES = 9;

/** Data frames carry at most this much; control payloads are far smaller. */
export const MAX_DATA_CHUNK = 256 * 1024;

/** A frame larger than this is hostile or corrupt: no well-behaved peer sends one. */
export const MAX_FRAME_PAYLOAD = 1024 * 1024;

export const FrameKind = {
  /** host → supervisor: a JSON request; the channel is the call id. */
  Call: 1,
  /** supervisor → host: the JSON outcome of a call. */
  Reply: 2,
  /** supervisor → host: a JSON notice about a call still running (a process exit). */
  Event: 3,
  /** either way: bytes of a stream. */
  Data: 4,
  /** either way: the sender will send no more bytes on this stream. */
  End: 5,
  /** either way: the receiver of a stream allows the sender this many more bytes (u32 payload). */
  Credit: 6,
  /** either way: abandon a stream now (the reader went away, a socket broke). */
  Reset: 7,
} as const;
export type FrameKind = (typeof FrameKind)[keyof typeof FrameKind];

const KNOWN_KINDS = new Set<number>(Object.values(FrameKind));

export interface Frame {
  kind: FrameKind;
  channel: number;
  payload: Buffer;
}

export class FrameFormatError extends Error {
  override name = 'FrameFormatError';
}

export function encodeFrame(kind: FrameKind, channel: number, payload: Uint8Array = EMPTY): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.byteLength);
  frame.writeUInt32BE(payload.byteLength, 0);
  frame.writeUInt8(kind, 4);
  frame.writeUInt32BE(channel, 5);
  frame.set(payload, FRAME_HEADER_BYTES);
  return frame;
}

/**
 * The header of a frame whose payload is written separately, right after it: bulk data goes out as
 * header + the caller's own bytes, without copying them into a new buffer first.
 */
export function encodeHeader(kind: FrameKind, channel: number, payloadBytes: number): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  header.writeUInt32BE(payloadBytes, 0);
  header.writeUInt8(kind, 4);
  header.writeUInt32BE(channel, 5);
  return header;
}

export function encodeJsonFrame(kind: FrameKind, channel: number, value: unknown): Buffer {
  return encodeFrame(kind, channel, Buffer.from(JSON.stringify(value), 'utf8'));
}

export function encodeCredit(channel: number, bytes: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt32BE(bytes, 0);
  return encodeFrame(FrameKind.Credit, channel, payload);
}

export function readCredit(frame: Frame): number {
  if (frame.payload.byteLength !== 4) throw new FrameFormatError('a credit frame carries exactly 4 bytes');
  return frame.payload.readUInt32BE(0);
}

const EMPTY = new Uint8Array(0);

/**
 * Splits a byte stream into frames. Feed it chunks as they arrive; it returns the complete frames and
 * keeps at most one partial frame. Throws FrameFormatError on the first malformed header, after which
 * the stream cannot be resynchronised and the link must be dropped.
 */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly maxPayload = MAX_FRAME_PAYLOAD) {}

  push(chunk: Buffer): Frame[] {
    if (chunk.byteLength === 0) return [];
    this.pending.push(chunk);
    this.pendingBytes += chunk.byteLength;
    const frames: Frame[] = [];
    while (this.pendingBytes >= FRAME_HEADER_BYTES) {
      const head = this.peek(FRAME_HEADER_BYTES);
      const length = head.readUInt32BE(0);
      const kind = head.readUInt8(4);
      if (!KNOWN_KINDS.has(kind)) throw new FrameFormatError(`unknown frame kind ${kind}`);
      if (length > this.maxPayload) {
        throw new FrameFormatError(`frame of ${length} bytes exceeds the ${this.maxPayload}-byte limit`);
      }
      if (this.pendingBytes < FRAME_HEADER_BYTES + length) break;
      const whole = this.take(FRAME_HEADER_BYTES + length);
      frames.push({
        kind: kind as FrameKind,
        channel: whole.readUInt32BE(5),
        payload: whole.subarray(FRAME_HEADER_BYTES),
      });
    }
    return frames;
  }

  /** Bytes of an unfinished frame still held: non-zero when the peer stopped mid-frame. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** The first `bytes` bytes as one buffer, joining only as many chunks as that takes. */
  private peek(bytes: number): Buffer {
    const first = this.pending[0]!;
    if (first.byteLength >= bytes) return first;
    let count = 0;
    let joined = 0;
    while (joined < bytes) joined += this.pending[count++]!.byteLength;
    this.pending.splice(0, count, Buffer.concat(this.pending.slice(0, count), joined));
    return this.pending[0]!;
  }

  private take(bytes: number): Buffer {
    const joined = this.peek(bytes);
    const taken = joined.subarray(0, bytes);
    const rest = joined.subarray(bytes);
    if (rest.byteLength > 0) this.pending[0] = rest;
    else this.pending.shift();
    this.pendingBytes -= bytes;
    return taken;
  }
}
