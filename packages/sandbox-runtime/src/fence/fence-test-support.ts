// Helpers for the fence tests: real directories and real fenced processes, removed afterwards.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';

import { launchFenced, type FenceSpec, type FencedProcess } from './launch-fenced.js';

export interface RunResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Collects a fenced process's output until it exits. */
export function collect(fenced: FencedProcess): Promise<RunResult> {
  const { child } = fenced;
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin!.end();
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs a bash script fenced by `spec` and returns what it printed. */
export async function runFenced(spec: FenceSpec, script: string): Promise<RunResult> {
  const fenced = await launchFenced(spec, ['bash', '-c', script]);
  try {
    return await collect(fenced);
  } finally {
    fenced.cleanup();
  }
}

/** A fresh directory under `parent` (not the host's /tmp, which is replaced inside the sandbox). */
export async function tempDir(
  parent = '/var/tmp',
  prefix = 'ai-sdk-fence-test-',
): Promise<{
  path: string;
  remove(): Promise<void>;
}> {
  const path = await mkdtemp(join(parent, prefix));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}
