// Runs the CLI's commands in the test's process with their output captured.
import { Readable } from 'node:stream';
import type { CliIo } from './cli-io.js';

export interface CapturedIo extends CliIo {
  /** Everything written to stdout so far. */
  out(): string;
  err(): string;
}

export function captureIo(
  options: { env?: NodeJS.ProcessEnv; stdin?: string[]; cwd?: string } = {},
): CapturedIo {
  const chunks = { out: [] as string[], err: [] as string[] };
  const writer = (into: string[]) => ({
    write(text: string | Uint8Array) {
      into.push(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'));
      return true;
    },
  });
  return {
    stdout: writer(chunks.out),
    stderr: writer(chunks.err),
    stdin: Readable.from(options.stdin ?? []),
    env: options.env ?? process.env,
    cwd: options.cwd ?? process.cwd(),
    out: () => chunks.out.join(''),
    err: () => chunks.err.join(''),
  };
}

/** The environment without the model keys, so the demo takes its keyless path. */
export function withoutModelKeys(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { ANTHROPIC_API_KEY: _key, CLAUDE_CODE_OAUTH_TOKEN: _token, ...rest } = env;
  return rest;
}
