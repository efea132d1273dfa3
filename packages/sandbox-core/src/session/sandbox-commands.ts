/**
 * The basic sandbox surface (`Experimental_SandboxSession`: commands and files) over a supervisor link.
 *
 * One instance per view of a sandbox: it remembers the processes it started, so a view can end its own
 * processes (release) without touching those of the sandbox's other views.
 */
import type { Experimental_SandboxProcess, Experimental_SandboxSession } from '@ai-sdk/provider-utils';
import { extractLines } from '@ai-sdk/provider-utils';
import { SandboxCommandError, SandboxFileError, SandboxOptionsError } from '../errors.js';
import { RemoteError } from '../link/remote-error.js';
import type { LinkedProcess, SupervisorLink } from '../link/supervisor-link.js';
import { assertCommand, assertEnvironment, assertPath } from './input-checks.js';

export interface SandboxCommandsOptions {
  description: string;
  /** The live link, or a throw (SandboxStoppedError) when the sandbox is not running. */
  link: () => SupervisorLink;
  /** Extra variables for each command, under the caller's own `env` (a credential placeholder, say). */
  prepareEnvironment?: (env: Record<string, string> | undefined) => Record<string, string> | undefined;
}

type SpawnOptions = Parameters<Experimental_SandboxSession['spawn']>[0];

const NODE_ENCODINGS = new Set([
  'utf8',
  'utf-8',
  'latin1',
  'binary',
  'ascii',
  'utf16le',
  'ucs2',
  'ucs-2',
  'base64',
  'base64url',
  'hex',
]);

export class SandboxCommands implements Experimental_SandboxSession {
  readonly description: string;
  private readonly live = new Set<LinkedProcess>();

  constructor(private readonly options: SandboxCommandsOptions) {
    this.description = options.description;
  }

  readonly spawn = async (options: SpawnOptions): Promise<Experimental_SandboxProcess> => {
    options.abortSignal?.throwIfAborted();
    assertCommand(options.command);
    if (options.workingDirectory !== undefined) assertPath(options.workingDirectory, 'workingDirectory');
    const env = this.options.prepareEnvironment ? this.options.prepareEnvironment(options.env) : options.env;
    if (env) assertEnvironment(env);
    const link = this.options.link();
    const process = await link
      .spawn({ command: options.command, workingDirectory: options.workingDirectory, env })
      .catch(error => {
        throw commandError(error, options.workingDirectory);
      });
    this.live.add(process);
    const signal = options.abortSignal;
    const onAbort = () => void process.kill().catch(() => undefined);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    const exited = process.exited.finally(() => {
      this.live.delete(process);
      signal?.removeEventListener('abort', onAbort);
    });
    exited.catch(() => undefined);
    return {
      pid: process.pid,
      stdout: process.stdout,
      stderr: process.stderr,
      wait: async () => {
        const exitCode = await exited;
        // An aborted command reports the abort, not the signal that ended it.
        signal?.throwIfAborted();
        return { exitCode };
      },
      kill: () => process.kill(),
    };
  };

  readonly run = async (options: SpawnOptions) => {
    const process = await this.spawn(options);
    const [stdout, stderr, outcome] = await Promise.allSettled([
      new Response(process.stdout).text(),
      new Response(process.stderr).text(),
      process.wait(),
    ]);
    if (outcome.status === 'rejected') throw outcome.reason;
    return {
      exitCode: outcome.value.exitCode,
      stdout: stdout.status === 'fulfilled' ? stdout.value : '',
      stderr: stderr.status === 'fulfilled' ? stderr.value : '',
    };
  };

  readonly readFile = async ({ path, abortSignal }: { path: string; abortSignal?: AbortSignal }) => {
    abortSignal?.throwIfAborted();
    assertPath(path, 'path');
    try {
      return await this.options.link().readFile(path);
    } catch (error) {
      throw fileError(error, 'read', path);
    }
  };

  readonly readBinaryFile = async (options: { path: string; abortSignal?: AbortSignal }) => {
    const stream = await this.readFile(options);
    if (!stream) return null;
    try {
      return await readAll(stream);
    } catch (error) {
      throw fileError(error, 'read', options.path);
    }
  };

  readonly readTextFile = async (options: {
    path: string;
    abortSignal?: AbortSignal;
    encoding?: string;
    startLine?: number;
    endLine?: number;
  }) => {
    const bytes = await this.readBinaryFile(options);
    if (!bytes) return null;
    const text = decode(bytes, options.encoding);
    if (options.startLine === undefined && options.endLine === undefined) return text;
    return extractLines({ text, startLine: options.startLine, endLine: options.endLine });
  };

  readonly writeFile = async ({
    path,
    content,
    abortSignal,
  }: {
    path: string;
    content: ReadableStream<Uint8Array>;
    abortSignal?: AbortSignal;
  }) => {
    abortSignal?.throwIfAborted();
    assertPath(path, 'path');
    try {
      await this.options.link().writeFile(path, content, abortSignal);
    } catch (error) {
      abortSignal?.throwIfAborted();
      throw fileError(error, 'write', path);
    }
  };

  readonly writeBinaryFile = async ({
    path,
    content,
    abortSignal,
  }: {
    path: string;
    content: Uint8Array;
    abortSignal?: AbortSignal;
  }) => {
    abortSignal?.throwIfAborted();
    assertPath(path, 'path');
    try {
      await this.options.link().writeFile(path, [content], abortSignal);
    } catch (error) {
      abortSignal?.throwIfAborted();
      throw fileError(error, 'write', path);
    }
  };

  readonly writeTextFile = async (options: {
    path: string;
    content: string;
    abortSignal?: AbortSignal;
    encoding?: string;
  }) => {
    if (typeof options.content !== 'string') {
      throw new SandboxOptionsError(
        `writeTextFile needs a string content for ${options.path}; use writeBinaryFile for bytes`,
      );
    }
    return this.writeBinaryFile({ ...options, content: encode(options.content, options.encoding) });
  };

  /** Ends every process this view started and waits until they are gone. */
  async killStarted(): Promise<void> {
    await Promise.all([...this.live].map(process => process.kill().catch(() => undefined)));
  }

  /** The basic surface only: what `restricted()` hands to tools. */
  restricted(): Experimental_SandboxSession {
    return {
      description: this.description,
      readFile: this.readFile,
      readBinaryFile: this.readBinaryFile,
      readTextFile: this.readTextFile,
      writeFile: this.writeFile,
      writeBinaryFile: this.writeBinaryFile,
      writeTextFile: this.writeTextFile,
      spawn: this.spawn,
      run: this.run,
    };
  }
}

/** The whole stream in one buffer, joined once at the end. */
async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  // A plain Uint8Array, as the contract says, not a Buffer (whose pool may be shared).
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function decode(bytes: Uint8Array, encoding = 'utf8'): string {
  const name = encoding.toLowerCase();
  if (NODE_ENCODINGS.has(name))
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(name as BufferEncoding);
  try {
    return new TextDecoder(name).decode(bytes);
  } catch {
    throw new SandboxOptionsError(
      `Unknown text encoding "${encoding}": use utf8, latin1, utf16le or another WHATWG encoding name.`,
    );
  }
}

function encode(text: string, encoding = 'utf8'): Uint8Array {
  const name = encoding.toLowerCase();
  if (NODE_ENCODINGS.has(name)) return Buffer.from(text, name as BufferEncoding);
  throw new SandboxOptionsError(
    `Cannot write text as "${encoding}": use utf8, latin1, utf16le, ascii, base64 or hex.`,
  );
}

function fileError(error: unknown, action: 'read' | 'write', path: string): unknown {
  if (error instanceof RemoteError) {
    return new SandboxFileError(
      `Could not ${action} ${path} in the sandbox: ${error.message} (${error.code})`,
      error.code,
      path,
    );
  }
  return error;
}

function commandError(error: unknown, workingDirectory: string | undefined): unknown {
  if (error instanceof RemoteError) {
    const where = workingDirectory ? ` in ${workingDirectory}` : '';
    const hint = error.code === 'ENOENT' ? ': the working directory does not exist' : '';
    return new SandboxCommandError(
      `Could not start the command${where}${hint} (${error.message})`,
      error.code,
    );
  }
  return error;
}
