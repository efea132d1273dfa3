/**
 * The implementations under test, created the way a user would: from the built packages (the bench
 * measures what ships), in a scratch directory removed at the end.
 */
import { createJustBashSandbox } from '@ai-sdk/sandbox-just-bash';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalNetworkSandboxSession } from '../../packages/sandbox-local/dist/index.js';
import { createSrtNetworkSandboxSession } from '../../packages/sandbox-runtime/dist/index.js';

export type SrtOptions = NonNullable<Parameters<typeof createSrtNetworkSandboxSession>[0]>;
export type SrtSession = Awaited<ReturnType<typeof createSrtNetworkSandboxSession>>;
export type LocalSession = Awaited<ReturnType<typeof createLocalNetworkSandboxSession>>;
export type JustBashSession = Awaited<ReturnType<ReturnType<typeof createJustBashSandbox>['createSession']>>;

/** Where every sandbox of this run lives; the host baselines write beside them. */
export const scratch = mkdtempSync(join(process.env.BENCH_TMPDIR ?? tmpdir(), 'sandbox-bench-'));

export function removeScratch(): void {
  rmSync(scratch, { recursive: true, force: true });
}

export function newSrt(options: SrtOptions = {}): Promise<SrtSession> {
  return createSrtNetworkSandboxSession({ directory: join(scratch, 'srt'), ...options });
}

export function newLocal(): Promise<LocalSession> {
  return createLocalNetworkSandboxSession({ directory: join(scratch, 'local') });
}

export async function newJustBash(): Promise<JustBashSession> {
  return await createJustBashSandbox().createSession();
}

/** A directory the host baselines use, on the same file system as the sandboxes' workspaces. */
export function hostDirectory(name: string): string {
  return mkdtempSync(join(scratch, `${name}-`));
}
