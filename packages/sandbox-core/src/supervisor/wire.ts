/**
 * The supervisor's end of the link: frames in from stdin, frames out to stdout, and the per-stream
 * plumbing (credit, backpressure) that every operation shares.
 */
import type { Readable, Writable } from 'node:stream';
import { CreditWindow } from '../protocol/credit-window.js';
import {
  encodeCredit,
  encodeFrame,
  encodeHeader,
  encodeJsonFrame,
  FrameDecoder,
  FrameKind,
  MAX_DATA_CHUNK,
  readCredit,
  type Frame,
} from '../protocol/frame.js';
import { INITIAL_STREAM_CREDIT, type CallEvent, type CallRequest, type Reply } from '../protocol/messages.js';

/** Receives the bytes the host sends on one stream. `write` resolves once the bytes are consumed. */
export interface InboundSink {
  write(chunk: Buffer): Promise<void>;
  end(): void;
  reset(): void;
}

export type CallHandler = (call: CallRequest, id: number) => void;

export class SupervisorWire {
  private readonly decoder = new FrameDecoder();
  private readonly outbound = new Map<number, CreditWindow>();
  private readonly inbound = new Map<number, { sink: InboundSink; queue: Promise<void> }>();
  /** Bytes that arrived for a stream before its call opened the sink (the host may send at once). */
  private readonly early = new Map<number, Frame[]>();
  /** Streams whose call ended: bytes still in flight for them are dropped, not held. */
  private readonly finished = new Set<number>();
  private drained: Promise<void> = Promise.resolve();

  constructor(
    private readonly output: Writable,
    private readonly onCall: CallHandler,
  ) {}

  attach(input: Readable, onEnd: () => void): void {
    input.on('data', (chunk: Buffer) => {
      for (const frame of this.decoder.push(chunk)) this.dispatch(frame);
    });
    input.on('end', onEnd);
    input.on('error', onEnd);
  }

  reply(id: number, reply: Reply): void {
    this.send(encodeJsonFrame(FrameKind.Reply, id, reply));
  }

  event(id: number, event: CallEvent): void {
    this.send(encodeJsonFrame(FrameKind.Event, id, event));
  }

  /** Copies a readable to the host on `stream`, honouring the host's credit and stdout's backpressure. */
  async pump(stream: number, source: AsyncIterable<Buffer>): Promise<void> {
    const window = this.openOutbound(stream);
    try {
      for await (const chunk of source) {
        let offset = 0;
        while (offset < chunk.byteLength) {
          await window.whenOpen();
          if (!this.outbound.has(stream)) return;
          const size = window.take(Math.min(MAX_DATA_CHUNK, chunk.byteLength - offset));
          await this.sendData(stream, chunk.subarray(offset, offset + size));
          offset += size;
        }
      }
    } finally {
      this.outbound.delete(stream);
    }
  }

  openOutbound(stream: number): CreditWindow {
    let window = this.outbound.get(stream);
    if (!window) {
      window = new CreditWindow(INITIAL_STREAM_CREDIT);
      this.outbound.set(stream, window);
    }
    return window;
  }

  end(stream: number): void {
    this.send(encodeFrame(FrameKind.End, stream));
  }

  reset(stream: number, reason?: { code: string; message: string }): void {
    this.outbound.get(stream)?.abandon();
    this.outbound.delete(stream);
    this.send(
      reason ? encodeJsonFrame(FrameKind.Reset, stream, reason) : encodeFrame(FrameKind.Reset, stream),
    );
  }

  /** Starts delivering a host→supervisor stream into `sink`, including bytes that arrived early. */
  openInbound(stream: number, sink: InboundSink): void {
    this.inbound.set(stream, { sink, queue: Promise.resolve() });
    const early = this.early.get(stream);
    this.early.delete(stream);
    for (const frame of early ?? []) this.dispatch(frame);
  }

  closeInbound(stream: number): void {
    this.inbound.delete(stream);
    this.early.delete(stream);
    this.finished.add(stream);
  }

  private dispatch(frame: Frame): void {
    switch (frame.kind) {
      case FrameKind.Call:
        this.onCall(JSON.parse(frame.payload.toString('utf8')) as CallRequest, frame.channel);
        return;
      case FrameKind.Credit:
        this.outbound.get(frame.channel)?.grant(readCredit(frame));
        return;
      case FrameKind.Data:
      case FrameKind.End:
      case FrameKind.Reset:
        this.deliver(frame);
        return;
      default:
        return;
    }
  }

  private deliver(frame: Frame): void {
    const target = this.inbound.get(frame.channel);
    if (!target) {
      if (frame.kind === FrameKind.Reset) {
        this.outbound.get(frame.channel)?.abandon();
        this.outbound.delete(frame.channel);
        this.early.delete(frame.channel);
      } else if (!this.finished.has(frame.channel)) {
        // A stream whose call is still being set up: hold its bytes (the host stays within its credit).
        const held = this.early.get(frame.channel) ?? [];
        held.push(frame);
        this.early.set(frame.channel, held);
      }
      return;
    }
    const { sink } = target;
    // Keep the sink's writes in order; grant the credit back only once the bytes are consumed.
    target.queue = target.queue.then(async () => {
      if (frame.kind === FrameKind.Data) {
        await sink.write(frame.payload);
        this.send(encodeCredit(frame.channel, frame.payload.byteLength));
      } else if (frame.kind === FrameKind.End) {
        sink.end();
      } else {
        sink.reset();
      }
    });
    target.queue.catch(() => sink.reset());
    if (frame.kind === FrameKind.Reset) {
      this.outbound.get(frame.channel)?.abandon();
      this.outbound.delete(frame.channel);
    }
  }

  private send(frame: Buffer): void {
    if (!this.output.write(frame)) {
      this.drained = new Promise(resolve => this.output.once('drain', resolve));
    }
  }

  private async sendData(stream: number, bytes: Buffer): Promise<void> {
    await this.drained;
    this.send(encodeHeader(FrameKind.Data, stream, bytes.byteLength));
    this.send(bytes);
  }
}
