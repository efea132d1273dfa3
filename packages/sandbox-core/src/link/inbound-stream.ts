/**
 * Bytes the supervisor sends the host on one stream, exposed as a web ReadableStream.
 *
 * Credit goes back to the supervisor only as the consumer reads, so a caller that stops reading
 * stops the sandbox's output at the source instead of piling it up in this process.
 */
import { CreditWindow } from '../protocol/credit-window.js';
import { INITIAL_STREAM_CREDIT } from '../protocol/messages.js';

export interface InboundStreamHooks {
  grant(bytes: number): void;
  /** The consumer cancelled: tell the supervisor to stop sending. */
  cancel(): void;
}

export class InboundStream {
  readonly readable: ReadableStream<Uint8Array>;
  private readonly window = new CreditWindow(INITIAL_STREAM_CREDIT);
  private readonly queue: Uint8Array[] = [];
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private ended = false;
  private failure: Error | undefined;
  private waiting: (() => void) | undefined;
  private settled = false;

  constructor(private readonly hooks: InboundStreamHooks) {
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: controller => {
          this.controller = controller;
        },
        pull: () => this.pull(),
        cancel: () => {
          this.settled = true;
          this.queue.length = 0;
          this.hooks.cancel();
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** False when the supervisor sent more than it was allowed: a protocol violation. */
  push(chunk: Uint8Array): boolean {
    if (this.settled || this.ended) return true; // late bytes of a cancelled stream are dropped
    if (!this.window.consume(chunk.byteLength)) return false;
    this.queue.push(chunk);
    this.wake();
    return true;
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.failure = error;
    this.wake();
  }

  get finished(): boolean {
    return this.settled;
  }

  private async pull(): Promise<void> {
    while (this.queue.length === 0 && !this.ended && !this.failure) {
      await new Promise<void>(resolve => (this.waiting = resolve));
    }
    const chunk = this.queue.shift();
    if (chunk) {
      this.controller.enqueue(chunk);
      this.window.grant(chunk.byteLength);
      this.hooks.grant(chunk.byteLength);
    } else if (this.failure) {
      this.settled = true;
      this.controller.error(this.failure);
    } else {
      this.settled = true;
      this.controller.close();
    }
  }

  private wake(): void {
    const wake = this.waiting;
    this.waiting = undefined;
    wake?.();
  }
}
