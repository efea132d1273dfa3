/**
 * Runs one command for the host: `bash -c <command>`, its output streamed live, its exit reported as
 * an exit code (128 + n when signal n killed it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import type { SupervisorConfig } from '../protocol/messages.js';
import { PROCESS_TAG_VARIABLE } from './process-tree.js';
import type { SupervisorWire } from './wire.js';

/**
 * After the shell exits, how long its output may stay quiet before we call it finished. A background
 * job (`server &`) inherits the shell's stdout and keeps the pipe open; waiting for the pipe to close
 * would block the caller for as long as the job lives, which is what breaks agents that start dev
 * servers. Output the shell wrote before exiting is already in the pipe and arrives well within this.
 */
const QUIET_AFTER_EXIT_MS = 50;
/** And a job that keeps printing does not hold the call open for more than this. */
const MAX_WAIT_AFTER_EXIT_MS = 250;

export interface SpawnRequest {
  command: string;
  workingDirectory?: string;
  env?: Record<string, string>;
  stdout: number;
  stderr: number;
}

export function commandEnvironment(
  config: SupervisorConfig,
  extra: Record<string, string> | undefined,
  tag: string,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...config.env, ...extra };
  for (const name of config.unsetEnv) delete env[name];
  env[PROCESS_TAG_VARIABLE] = tag;
  return env;
}

export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const number = signal ? constants.signals[signal] : undefined;
  return 128 + (number ?? 0);
}

/**
 * Starts the command; returns once it runs (or throws when it cannot start). `onExit` fires after the
 * output streams are finished, with the exit code.
 */
export function spawnCommand(
  wire: SupervisorWire,
  config: SupervisorConfig,
  request: SpawnRequest,
  tag: string,
  onExit: (exitCode: number) => void,
): Promise<ChildProcess> {
  const child = spawn('/bin/bash', ['-c', request.command], {
    cwd: request.workingDirectory ?? config.defaultWorkingDirectory,
    env: commandEnvironment(config, request.env, tag),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so signals for it never reach the supervisor.
    detached: true,
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('spawn', () => {
      child.off('error', reject);
      const outputs = [
        forward(wire, request.stdout, child.stdout!),
        forward(wire, request.stderr, child.stderr!),
      ];
      child.once('exit', (code, signal) => {
        void Promise.all(outputs.map(output => output.finish())).then(() => onExit(exitCodeOf(code, signal)));
      });
      resolve(child);
    });
  });
}

/** Forwards one output pipe until the command's shell exits and the pipe goes quiet. */
function forward(wire: SupervisorWire, stream: number, pipe: Readable) {
  let lastData = Date.now();
  let open = true;
  // True while a chunk is handed to the pump and not yet sent: the host is slow, not the pipe quiet.
  let sending = false;
  const chunks = (async function* () {
    for await (const chunk of pipe) {
      lastData = Date.now();
      if (!open) continue; // keep draining so a background job never blocks on a full pipe
      sending = true;
      yield chunk as Buffer;
      sending = false;
    }
  })();
  const pumped = wire.pump(stream, chunks).catch(() => undefined);
  let closed = false;
  const whenClosed = new Promise<void>(resolve =>
    pipe.once('close', () => {
      closed = true;
      resolve();
    }),
  );

  return {
    async finish(): Promise<void> {
      const exitedAt = Date.now();
      for (;;) {
        if (closed) {
          await pumped;
          break;
        }
        const now = Date.now();
        // Quiet is counted from the exit at the earliest: output written just before it may not have
        // been read yet when the exit is reported, above all on a busy machine.
        const quietFor = now - Math.max(lastData, exitedAt);
        if (!sending && (quietFor >= QUIET_AFTER_EXIT_MS || now - exitedAt >= MAX_WAIT_AFTER_EXIT_MS)) {
          open = false;
          break;
        }
        await Promise.race([whenClosed, new Promise(resolve => setTimeout(resolve, 5))]);
      }
      wire.end(stream);
    },
  };
}
