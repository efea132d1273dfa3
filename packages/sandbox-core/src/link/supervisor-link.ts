/**
 * The host's end of the link to one supervisor: calls, streams and their flow control, over the
 * supervisor's stdin and stdout.
 *
 * Everything read here comes from inside the sandbox and is checked before use: frame sizes by the
 * decoder, JSON by schemas, stream bytes against the credit granted. The first violation ends the
 * link with a SupervisorLinkError, and so does the supervisor's exit; either way every pending call,
 * stream and process wait rejects at once with that error, and later calls fail with it too.
 */
import { Duplex, type Readable, type Writable } from 'node:stream';
import type { z } from 'zod';
import { SupervisorLinkError } from '../errors.js';
import { CreditWindow } from '../protocol/credit-window.js';
import {
  encodeCredit,
  encodeFrame,
  encodeHeader,
  encodeJsonFrame,
  FrameDecoder,
  FrameFormatError,
  FrameKind,
  MAX_DATA_CHUNK,
  readCredit,
  type Frame,
} from '../protocol/frame.js';
import {
  INITIAL_STREAM_CREDIT,
  type CallRequest,
  type HelloValue,
  type ReadFileValue,
  type SupervisorConfig,
} from '../protocol/messages.js';
import {
  callEventSchema,
  helloValueSchema,
  killAllValueSchema,
  MAX_JSON_PAYLOAD,
  readFileValueSchema,
  replySchema,
  spawnValueSchema,
} from '../protocol/reply-schemas.js';
import { InboundStream } from './inbound-stream.js';
import { RemoteError } from './remote-error.js';

export interface SupervisorTransport {
  /** The supervisor's stdout. */
  readonly fromSupervisor: Readable;
  /** The supervisor's stdin. */
  readonly toSupervisor: Writable;
}

export interface LinkedProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Resolves with the exit code (128 + n for signal n). */
  readonly exited: Promise<number>;
  kill(): Promise<void>;
}

interface PendingCall {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class SupervisorLink {
  private readonly decoder = new FrameDecoder();
  private readonly calls = new Map<number, PendingCall>();
  private readonly exits = new Map<number, PendingCall>();
  private readonly inbound = new Map<number, InboundStream>();
  private readonly outbound = new Map<number, CreditWindow>();
  private nextId = 1;
  private failure: SupervisorLinkError | undefined;
  private drained: Promise<void> = Promise.resolve();
  /** Ends the wait for 'drain' when the link fails: a dead supervisor's stdin never drains. */
  private releaseDrain: (() => void) | undefined;
  private readonly closeListeners = new Set<(error: SupervisorLinkError) => void>();

  constructor(private readonly transport: SupervisorTransport) {
    transport.fromSupervisor.on('data', (chunk: Buffer) => this.receive(chunk));
    transport.fromSupervisor.on('end', () =>
      this.fail(new SupervisorLinkError('the sandbox supervisor exited', 'exited')),
    );
    transport.fromSupervisor.on('error', error =>
      this.fail(
        new SupervisorLinkError('the link to the sandbox supervisor broke', 'exited', { cause: error }),
      ),
    );
    transport.toSupervisor.on('error', error =>
      this.fail(
        new SupervisorLinkError('the link to the sandbox supervisor broke', 'exited', { cause: error }),
      ),
    );
  }

  get isOpen(): boolean {
    return this.failure === undefined;
  }

  /** Why the link is down, once it is. */
  get error(): SupervisorLinkError | undefined {
    return this.failure;
  }

  onClose(listener: (error: SupervisorLinkError) => void): () => void {
    if (this.failure) listener(this.failure);
    else this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  async hello(config: SupervisorConfig): Promise<HelloValue> {
    return parseValue(helloValueSchema, await this.call({ op: 'hello', config }), this);
  }

  async ping(): Promise<void> {
    await this.call({ op: 'ping' });
  }

  async spawn(options: {
    command: string;
    workingDirectory?: string;
    env?: Record<string, string>;
  }): Promise<LinkedProcess> {
    const id = this.allocate();
    const stdout = this.allocate();
    const stderr = this.allocate();
    const out = this.openInbound(stdout);
    const err = this.openInbound(stderr);
    const exited = new Promise<number>((resolve, reject) =>
      this.exits.set(id, { resolve: value => resolve(value as number), reject }),
    );
    exited.catch(() => undefined); // rejection is for whoever awaits it; never unhandled here
    try {
      const value = parseValue(
        spawnValueSchema,
        await this.call({ op: 'spawn', ...options, stdout, stderr }, id),
        this,
      );
      return {
        pid: value.pid,
        stdout: out.readable,
        stderr: err.readable,
        exited,
        kill: async () => {
          if (!this.exits.has(id)) return; // already exited
          await this.call({ op: 'kill', call: id });
        },
      };
    } catch (error) {
      this.exits.delete(id);
      this.inbound.delete(stdout);
      this.inbound.delete(stderr);
      throw error;
    }
  }

  /** The file's bytes, or null when it does not exist. */
  async readFile(path: string): Promise<ReadableStream<Uint8Array> | null> {
    const stream = this.allocate();
    const inbound = this.openInbound(stream);
    try {
      const value: ReadFileValue = parseValue(
        readFileValueSchema,
        await this.call({ op: 'readFile', path, stream }),
        this,
      );
      if (!value.found) {
        this.inbound.delete(stream);
        return null;
      }
      return inbound.readable;
    } catch (error) {
      this.inbound.delete(stream);
      throw error;
    }
  }

  /** Writes `content` to `path`, atomically. An abort stops the transfer and leaves the old file. */
  async writeFile(
    path: string,
    content: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    abortSignal?: AbortSignal,
  ): Promise<void> {
    const stream = this.allocate();
    const window = this.openOutbound(stream);
    const done = this.call({ op: 'writeFile', path, stream });
    let sending = true;
    // The supervisor may refuse before taking everything (ENOSPC, EACCES): stop sending then.
    const refused: Promise<typeof STOP> = done.then(
      () => STOP,
      () => STOP,
    );
    const iterator = chunksOf(content)[Symbol.asyncIterator]();
    // A producer that stalls must not hold the call open once the link is gone or the write refused:
    // each wait for a chunk can be cut short. Not with Promise.race against those long-lived
    // promises, which would keep every chunk of the write (each race's result) until they settle.
    let wake: ((value: typeof STOP) => void) | undefined;
    const stopWaiting = () => wake?.(STOP);
    void refused.finally(() => {
      sending = false;
      stopWaiting();
    });
    const unsubscribe = this.onClose(stopWaiting);
    const nextChunk = () =>
      new Promise<IteratorResult<Uint8Array> | typeof STOP>((resolve, reject) => {
        if (!sending || this.failure) return resolve(STOP);
        wake = resolve;
        iterator.next().then(resolve, reject);
      }).finally(() => (wake = undefined));
    try {
      for (;;) {
        const next = await nextChunk();
        if (next === STOP || next.done) break;
        abortSignal?.throwIfAborted();
        if (!(await this.sendChunked(stream, window, next.value, () => sending))) break;
      }
      abortSignal?.throwIfAborted();
      if (sending) this.send(encodeFrame(FrameKind.End, stream));
    } catch (error) {
      if (sending && this.isOpen) this.send(encodeFrame(FrameKind.Reset, stream));
      await done.catch(() => undefined);
      throw error;
    } finally {
      unsubscribe();
      this.outbound.delete(stream);
      void iterator.return?.().catch(() => undefined);
    }
    await done;
  }

  /** A byte stream to `host:port` where the supervisor runs. */
  async connect(port: number, host?: string): Promise<Duplex> {
    const { socket, connected } = this.openConnection(port, host);
    await connected;
    return socket;
  }

  /**
   * A byte stream to `host:port` where the supervisor runs, usable at once: bytes written before the
   * supervisor has connected wait there (within the stream's credit), which saves a forwarded
   * connection a round trip. `connected` rejects, and the socket is destroyed, if it cannot connect.
   */
  openConnection(port: number, host?: string): { socket: Duplex; connected: Promise<void> } {
    const stream = this.allocate();
    const inbound = this.openInbound(stream);
    const window = this.openOutbound(stream);
    const reader = inbound.readable.getReader();
    let open = true;
    const duplex = new Duplex({
      read: () => {
        reader.read().then(
          ({ value, done }) =>
            duplex.push(done ? null : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
          error => duplex.destroy(error as Error),
        );
      },
      write: (chunk: Buffer, _encoding, callback) => {
        this.sendChunked(stream, window, chunk, () => open).then(() => callback(), callback);
      },
      final: callback => {
        if (open && this.isOpen) this.send(encodeFrame(FrameKind.End, stream));
        callback();
      },
      destroy: (error, callback) => {
        if (open && this.isOpen && !inbound.finished) this.send(encodeFrame(FrameKind.Reset, stream));
        open = false;
        this.outbound.delete(stream);
        void reader.cancel().catch(() => undefined);
        callback(error);
      },
    });
    const connected = this.call({ op: 'connect', port, host, stream }).then(
      () => undefined,
      (error: Error) => {
        this.inbound.delete(stream);
        this.outbound.delete(stream);
        duplex.destroy(error);
        throw error;
      },
    );
    connected.catch(() => undefined); // also reported through the socket's 'error'
    return { socket: duplex, connected };
  }

  async killAll(): Promise<number> {
    return parseValue(killAllValueSchema, await this.call({ op: 'killAll' }), this).killed;
  }

  /** Ends the link from this side (the supervisor is being stopped on purpose). */
  close(reason = 'the sandbox was stopped'): void {
    this.fail(new SupervisorLinkError(reason, 'closed'));
  }

  private call(request: CallRequest, id = this.allocate()): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.send(encodeJsonFrame(FrameKind.Call, id, request));
    });
  }

  private allocate(): number {
    const id = this.nextId;
    // Ids are u32 on the wire; wrapping after four billion calls is fine, collisions are not possible
    // in practice because nothing lives that long.
    this.nextId = this.nextId >= 0xffff_fffe ? 1 : this.nextId + 1;
    return id;
  }

  private openInbound(stream: number): InboundStream {
    const inbound = new InboundStream({
      grant: bytes => {
        if (this.isOpen) this.send(encodeCredit(stream, bytes));
      },
      cancel: () => {
        this.inbound.delete(stream);
        if (this.isOpen) this.send(encodeFrame(FrameKind.Reset, stream));
      },
    });
    this.inbound.set(stream, inbound);
    return inbound;
  }

  private openOutbound(stream: number): CreditWindow {
    const window = new CreditWindow(INITIAL_STREAM_CREDIT);
    this.outbound.set(stream, window);
    return window;
  }

  /** Sends `chunk` within the stream's credit; false once `stillOpen()` says to stop. */
  private async sendChunked(
    stream: number,
    window: CreditWindow,
    chunk: Uint8Array,
    stillOpen: () => boolean,
  ): Promise<boolean> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      await window.whenOpen();
      if (this.failure) throw this.failure;
      if (!stillOpen()) return false;
      const size = window.take(Math.min(MAX_DATA_CHUNK, chunk.byteLength - offset));
      await this.drained;
      this.send(encodeHeader(FrameKind.Data, stream, size));
      this.send(chunk.subarray(offset, offset + size));
      offset += size;
    }
    return true;
  }

  private send(frame: Uint8Array): void {
    if (this.failure) return;
    if (!this.transport.toSupervisor.write(frame)) {
      this.drained = new Promise(resolve => {
        this.releaseDrain = resolve;
        this.transport.toSupervisor.once('drain', resolve);
      });
    }
  }

  private receive(chunk: Buffer): void {
    if (this.failure) return;
    try {
      for (const frame of this.decoder.push(chunk)) {
        this.dispatch(frame);
        if (this.failure) return;
      }
    } catch (error) {
      const message =
        error instanceof FrameFormatError || error instanceof ProtocolViolation
          ? error.message
          : 'an unreadable message';
      this.fail(
        new SupervisorLinkError(`the sandbox supervisor broke the protocol: ${message}`, 'protocol', {
          cause: error,
        }),
      );
    }
  }

  private dispatch(frame: Frame): void {
    switch (frame.kind) {
      case FrameKind.Reply: {
        const reply = parseJson(replySchema, frame);
        const pending = this.calls.get(frame.channel);
        if (!pending) return; // a reply to nothing we asked: ignore, it cannot hurt
        this.calls.delete(frame.channel);
        if (reply.ok) pending.resolve(reply.value);
        else pending.reject(new RemoteError(reply.error.code, reply.error.message));
        return;
      }
      case FrameKind.Event: {
        const event = parseJson(callEventSchema, frame);
        const pending = this.exits.get(frame.channel);
        if (!pending) return;
        this.exits.delete(frame.channel);
        pending.resolve(event.exitCode);
        return;
      }
      case FrameKind.Data: {
        const inbound = this.inbound.get(frame.channel);
        if (inbound && !inbound.push(frame.payload)) {
          throw new ProtocolViolation(`stream ${frame.channel} got more bytes than it was granted`);
        }
        return;
      }
      case FrameKind.End: {
        this.inbound.get(frame.channel)?.end();
        this.inbound.delete(frame.channel);
        return;
      }
      case FrameKind.Credit: {
        const bytes = readCredit(frame); // validated even for a stream we no longer track
        this.outbound.get(frame.channel)?.grant(bytes);
        return;
      }
      case FrameKind.Reset: {
        const reason = frame.payload.byteLength > 0 ? safeReason(frame.payload) : undefined;
        this.inbound
          .get(frame.channel)
          ?.fail(
            reason
              ? new RemoteError(reason.code, reason.message)
              : new RemoteError('ECONNRESET', 'stream reset'),
          );
        this.inbound.delete(frame.channel);
        const window = this.outbound.get(frame.channel);
        this.outbound.delete(frame.channel);
        window?.abandon();
        return;
      }
      case FrameKind.Call:
        throw new ProtocolViolation('the supervisor may not make calls');
    }
  }

  /** Ends the link with `error`: every pending and later call rejects with it. */
  fail(error: SupervisorLinkError): void {
    if (this.failure) return;
    this.failure = error;
    this.releaseDrain?.();
    for (const pending of [...this.calls.values(), ...this.exits.values()]) pending.reject(error);
    this.calls.clear();
    this.exits.clear();
    for (const inbound of this.inbound.values()) inbound.fail(error);
    this.inbound.clear();
    for (const window of this.outbound.values()) window.abandon();
    this.outbound.clear();
    this.transport.fromSupervisor.removeAllListeners('data');
    this.transport.fromSupervisor.on('error', () => undefined);
    this.transport.toSupervisor.on('error', () => undefined);
    for (const listener of this.closeListeners) listener(error);
    this.closeListeners.clear();
  }
}

class ProtocolViolation extends Error {}

const STOP: unique symbol = Symbol('stop');

async function* chunksOf(
  content: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
): AsyncIterable<Uint8Array> {
  if (!(content instanceof ReadableStream)) return yield* content;
  const reader = content.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Stops the producer too when the write ends early (abort, refusal).
    await reader.cancel().catch(() => undefined);
  }
}

function parseJson<T>(schema: z.ZodType<T>, frame: Frame): T {
  if (frame.payload.byteLength > MAX_JSON_PAYLOAD) {
    throw new ProtocolViolation(
      `a ${frame.payload.byteLength}-byte message is larger than any the protocol sends`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(frame.payload.toString('utf8'));
  } catch {
    throw new ProtocolViolation('a message that is not JSON');
  }
  const result = schema.safeParse(value);
  if (!result.success)
    throw new ProtocolViolation(`a malformed message (${result.error.issues[0]?.message})`);
  return result.data;
}

function safeReason(payload: Buffer): { code: string; message: string } | undefined {
  try {
    const value = JSON.parse(payload.toString('utf8')) as { code?: unknown; message?: unknown };
    if (typeof value.code === 'string' && typeof value.message === 'string') {
      return { code: value.code.slice(0, 64), message: value.message.slice(0, 4096) };
    }
  } catch {
    // fall through: a reset without a readable reason is still a reset
  }
  return undefined;
}

/** A reply value that does not match its schema ends the link like any other violation. */
function parseValue<T>(schema: z.ZodType<T>, value: unknown, link: SupervisorLink): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const error = new SupervisorLinkError(
    `the sandbox supervisor broke the protocol: a malformed reply (${result.error.issues[0]?.message})`,
    'protocol',
  );
  link.fail(error);
  throw link.error ?? error;
}
