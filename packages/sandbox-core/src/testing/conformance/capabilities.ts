import type { HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';

/** What each skippable capability means; a sandbox lacking one names it in `ConformanceOptions.skip`. */
export const conformanceCapabilities = {
  ports:
    'The ports in `ports` are reachable from the host: a server listening on one inside the sandbox answers at getPortEndpoint()/getPortUrl().',
  realProcesses:
    'Commands are OS processes: `$$` and `$!` are pids another command can probe with `kill -0`, signals end them (exit 128+n), and programs such as `node` run.',
  killDescendants: 'kill() and aborts also end the children a command started (`sleep 1000 & wait`).',
  backgroundJobs:
    'run() returns when the shell exits, even while a background job it started still runs and holds stdout open.',
  liveOutput:
    "spawn() delivers stdout while the process still runs, not when it ends (the bridge's ready line).",
  abortRejects: 'run() rejects when its signal aborts while the command runs.',
  largeFiles: 'Multi-megabyte files stream through writeFile() and readFile().',
  encodings: 'readTextFile() and writeTextFile() honour `encoding` (latin1).',
  writeOverDirectory: 'A write onto an existing directory fails rather than replacing it.',
  lifecycle: 'stop() ends running processes, and calls after destroy() reject.',
} as const;

export type ConformanceCapability = keyof typeof conformanceCapabilities;

export interface ConformanceOptions {
  /** Creates a fresh session for a test or a describe block; the suite destroys it afterwards. */
  create: () => PromiseLike<HarnessV1NetworkSandboxSession>;
  /** Capabilities the sandbox lacks, each with the reason shown in the skipped tests' titles. */
  skip?: Partial<Record<ConformanceCapability, string>>;
}

/** Throws on a skip that names no known capability or gives no reason; returns the skips otherwise. */
export function validateSkips(
  skip: Partial<Record<ConformanceCapability, string>>,
): Partial<Record<string, string>> {
  for (const [capability, reason] of Object.entries(skip)) {
    if (!(capability in conformanceCapabilities)) {
      throw new Error(
        `Unknown conformance capability "${capability}" in skip; use one of: ${Object.keys(conformanceCapabilities).join(', ')}.`,
      );
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`skip.${capability} needs a reason saying why the sandbox lacks it.`);
    }
  }
  return skip;
}
