/** The floor: the same work done by this process directly, with no sandbox in the way. */
import { spawn } from 'node:child_process';

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** `bash -c command`, collecting both streams as text the way a sandbox's `run` does. */
export function hostRun(
  command: string,
  argv: readonly string[] = ['/bin/bash', '-c', command],
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      resolve({
        exitCode: code ?? 128 + (signal ? 9 : 0),
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/**
 * Node spawns with fork(), whose cost grows with the parent's RSS (about 50 µs per MB here): the host
 * rows fork this bench process, the sandboxes' supervisors are small processes.
 */
export function hostSpawnNote(): string {
  return `forks this bench process (RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB at the time)`;
}
