/**
 * The naive fence: one srt wrap, hence one new bwrap (and its socat helpers), per command. This is
 * what running every command through srt would cost without a long-running supervisor.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { hostRun, type RunResult } from './host.ts';

interface Manager {
  wrapWithSandbox(command: string): Promise<string>;
  cleanupAfterCommand(): void;
  getProxyPort(): number | undefined;
}

const runtimeRequire = createRequire(new URL('../../packages/sandbox-runtime/package.json', import.meta.url));

/** srt's SandboxManager as the runtime package loads it: the same instance, already initialised. */
export async function srtManager(): Promise<Manager> {
  const module = (await import(runtimeRequire.resolve('@anthropic-ai/sandbox-runtime'))) as {
    SandboxManager: Manager;
  };
  if (module.SandboxManager.getProxyPort() === undefined) {
    throw new Error('srt is not initialised yet: create an srt sandbox before running the naive fence.');
  }
  return module.SandboxManager;
}

/** A command run through the library: wrap, spawn bash on the wrap, clean up after it. */
export async function naiveRun(manager: Manager, command: string): Promise<RunResult> {
  const wrapped = await manager.wrapWithSandbox(command);
  try {
    return await hostRun(wrapped);
  } finally {
    manager.cleanupAfterCommand();
  }
}

/** A command run through srt's CLI: a new node process, proxy and bwrap per command. */
export function cliRunner(directory: string): (command: string) => Promise<RunResult> {
  const settings = join(directory, 'srt-settings.json');
  writeFileSync(
    settings,
    JSON.stringify({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    }),
  );
  const bin = join(
    runtimeRequire.resolve('@anthropic-ai/sandbox-runtime/package.json'),
    '..',
    'dist',
    'cli.js',
  );
  return command => hostRun(command, [process.execPath, bin, '--settings', settings, '-c', command]);
}
