/**
 * The sandbox a `run` or `shell` works in: the one named by --sandbox-id when it exists (resumed
 * with the rules it was created with, and kept), otherwise a new one, removed at the end unless
 * --keep asks to keep it.
 */
import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import {
  createSrtNetworkSandboxSession,
  resumeSrtNetworkSandboxSession,
  SrtSandboxNotFoundError,
} from '../srt-lifecycle.js';
import type { SandboxSpec } from './args.js';
import { line, type CliIo } from './cli-io.js';
import { progressPrinter } from './progress.js';

export interface OpenedSandbox {
  readonly session: SrtNetworkSandboxSession;
  /** True when this command created it (false: resumed). */
  readonly created: boolean;
  /** Stops the sandbox; removes it too when this command created it without --keep. */
  close(): Promise<void>;
}

export async function openSandbox(spec: SandboxSpec, io: CliIo): Promise<OpenedSandbox> {
  const onProgress = progressPrinter(io);
  let session: SrtNetworkSandboxSession | undefined;
  if (spec.sandboxId !== undefined) {
    try {
      session = await resumeSrtNetworkSandboxSession({
        sandboxId: spec.sandboxId,
        directory: spec.directory,
        runtime: spec.runtime,
        onProgress,
        abortSignal: io.signal,
      });
    } catch (error) {
      if (!(error instanceof SrtSandboxNotFoundError)) throw error;
    }
    if (session && spec.rulesGiven.length > 0) {
      line(
        io.stderr,
        `note: sandbox ${spec.sandboxId} exists and keeps the rules it was created with; ` +
          `${spec.rulesGiven.join(', ')} ignored.`,
      );
    }
  }
  const created = session === undefined;
  session ??= await createSrtNetworkSandboxSession({
    ...spec.rules,
    sandboxId: spec.sandboxId,
    directory: spec.directory,
    runtime: spec.runtime,
    onProgress,
    abortSignal: io.signal,
  });
  const opened = session;
  const keep = !created || spec.keep;
  return {
    session: opened,
    created,
    async close() {
      if (keep) {
        await opened.stop();
        if (created) {
          line(io.stderr, `Kept sandbox ${opened.id}; use it again with --sandbox-id ${opened.id}.`);
        }
      } else {
        await opened.destroy();
      }
    },
  };
}
