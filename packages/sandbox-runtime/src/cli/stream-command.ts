import type { Experimental_SandboxSession } from '@ai-sdk/provider-utils';
import { quoteWords } from '../fence/shell-words.js';
import { INTERRUPTED_EXIT_CODE, type CliIo, type CliOutput } from './cli-io.js';

/**
 * The shell command for the words after `--`: several words are run as exactly those arguments
 * (quoted), a single word is a command line of its own, so `run -- 'ls | wc -l'` pipes.
 */
export function commandLineOf(words: readonly string[]): string {
  return words.length === 1 ? words[0]! : quoteWords(words);
}

async function pump(stream: ReadableStream<Uint8Array>, output: CliOutput): Promise<void> {
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) output.write(read.value);
}

/**
 * Runs `command` in the sandbox with its output streamed to ours as it comes, and returns its exit
 * code: 130 when `signal` stopped it first.
 */
export async function streamCommand(
  session: Experimental_SandboxSession,
  command: string,
  io: CliIo,
  options: { workingDirectory?: string; signal?: AbortSignal } = {},
): Promise<number> {
  const signal = options.signal ?? io.signal;
  if (signal?.aborted) return INTERRUPTED_EXIT_CODE;
  const child = await session.spawn({
    command,
    workingDirectory: options.workingDirectory,
    abortSignal: signal,
  });
  const output = Promise.all([pump(child.stdout, io.stdout), pump(child.stderr, io.stderr)]);
  try {
    const { exitCode } = await child.wait();
    await output;
    // A shell's exit status is 0 to 255; anything else (a code the platform could not give) is a failure.
    return Number.isInteger(exitCode) && exitCode >= 0 && exitCode <= 255 ? exitCode : 1;
  } catch (error) {
    if (!signal?.aborted) throw error;
    await child.kill();
    // What the command printed before it was stopped, without waiting on a stream that never ends.
    await Promise.race([
      output.catch(() => undefined),
      new Promise(resolve => setTimeout(resolve, 2000).unref()),
    ]);
    return INTERRUPTED_EXIT_CODE;
  }
}
