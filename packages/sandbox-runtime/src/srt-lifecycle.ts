/**
 * Creating and resuming srt sandboxes: the top of the stack. Creation claims the sandbox's directory
 * (an existing id is a conflict, never a silent resume), saves its rules, starts it, runs the setup
 * commands and the template, and removes everything again if any step fails. Resumption reads the
 * saved rules and starts the sandbox with exactly those: its files are kept, its processes are not.
 */
import {
  checkSandboxId,
  claimSandboxDirectory,
  newSandboxId,
  readRecord,
  SandboxNotFoundError,
  writeRecord,
} from '@internal/sandbox-core';
import type { Experimental_SandboxSession } from '@ai-sdk/provider-utils';
import { mkdir, rm } from 'node:fs/promises';
import { DEFAULT_ALLOWED_DOMAINS } from './fence/default-allowed-domains.js';
import { validateAllowedDomains } from './fence/domain-pattern.js';
import { ensureLayout, sandboxLayout } from './fence/layout.js';
import { SrtSandbox } from './sandbox/srt-sandbox.js';
import { TemplateCache } from './template/template-cache.js';
import { createSrtView, type SrtNetworkSandboxSession } from './sandbox/srt-view.js';
import { SrtError } from './srt-error.js';
import {
  checkSrtOptions,
  srtRecordSchema,
  type SrtProgressEvent,
  type SrtRecord,
  type SrtSandboxOptions,
  type SrtSandboxResumeOptions,
} from './srt-options.js';

/** Thrown by resume when no sandbox has the id. */
export class SrtSandboxNotFoundError extends SandboxNotFoundError {
  override name = 'SrtSandboxNotFoundError';
}

export async function createSrtNetworkSandboxSession(
  options: SrtSandboxOptions = {},
): Promise<SrtNetworkSandboxSession> {
  const checked = checkSrtOptions(options);
  const signal = checked.abortSignal;
  signal?.throwIfAborted();
  const layout = sandboxLayout(checked.sandboxId ?? newSandboxId('srt'), checked.directory);
  const record: SrtRecord = {
    version: 1,
    kind: 'srt',
    sandboxId: layout.sandboxId,
    createdAt: new Date().toISOString(),
    workspace: checked.workspace,
    readOnlyWorkspaces: checked.readOnlyWorkspaces ?? [],
    hideHome: checked.hideHome ?? true,
    allowRead: checked.allowRead ?? [],
    denyRead: checked.denyRead ?? [],
    denyWrite: checked.denyWrite ?? [],
    allowedDomains: validateAllowedDomains(checked.allowedDomains ?? [...DEFAULT_ALLOWED_DOMAINS]),
    ports: checked.ports ?? [],
    env: checked.env ?? {},
    brokerCredentials: checked.brokerCredentials ?? true,
    credentialVariables: checked.credentialVariables ?? {},
    templateIdentity: checked.template?.identity,
  };
  await mkdir(layout.directory, { recursive: true, mode: 0o700 });
  await claimSandboxDirectory(layout.sandboxDir, layout.sandboxId);
  let session: SrtNetworkSandboxSession | undefined;
  try {
    await ensureLayout(layout);
    await writeRecord(layout.sandboxDir, record);
    const progress = checked.onProgress ?? (() => undefined);
    progress({ phase: 'starting', message: `starting sandbox ${layout.sandboxId}` });
    const cache = checked.template && checked.templateCache !== false ? TemplateCache.for(layout) : undefined;
    const restored = cache ? await cache.restore(checked.template!.identity, layout) : false;
    session = await open(layout, record, checked);
    for (const command of checked.setup ?? []) {
      progress({ phase: 'setup', message: command });
      const result = await session.run({ command, abortSignal: signal });
      if (result.exitCode !== 0) {
        throw new SrtError(
          `The setup command ${JSON.stringify(command)} exited with ${result.exitCode}: ` +
            `${tail(result.stderr || result.stdout)}`,
          'setup-failed',
        );
      }
    }
    if (checked.template && restored) {
      progress({ phase: 'template', message: `template ${checked.template.identity} copied from the cache` });
    } else if (checked.template) {
      progress({ phase: 'template', message: `preparing template ${checked.template.identity}` });
      await checked.template.prepare({
        session: withProgress(session.restricted(), progress),
        abortSignal: signal,
      });
      if (cache) {
        progress({ phase: 'template', message: `saving template ${checked.template.identity} to the cache` });
        await cache.save(checked.template.identity, layout);
      }
    }
    progress({ phase: 'ready', message: `sandbox ${layout.sandboxId} is ready` });
    return session;
  } catch (error) {
    // A sandbox that failed to come up is removed whole: there is nothing in it worth resuming.
    await Promise.resolve(session?.destroy()).catch(() => undefined);
    await rm(layout.sandboxDir, { recursive: true, force: true });
    throw error;
  }
}

export async function resumeSrtNetworkSandboxSession(
  options: SrtSandboxResumeOptions,
): Promise<SrtNetworkSandboxSession> {
  const sandboxId = checkSandboxId(options?.sandboxId);
  options.abortSignal?.throwIfAborted();
  const layout = sandboxLayout(sandboxId, options.directory);
  let record: SrtRecord;
  try {
    record = await readRecord(layout.sandboxDir, sandboxId, srtRecordSchema);
  } catch (error) {
    if (error instanceof SandboxNotFoundError) throw new SrtSandboxNotFoundError(error.message, sandboxId);
    throw error;
  }
  await ensureLayout(layout);
  return open(layout, record, options);
}

async function open(
  layout: ReturnType<typeof sandboxLayout>,
  record: SrtRecord,
  options: Pick<SrtSandboxOptions, 'runtime' | 'abortSignal'>,
): Promise<SrtNetworkSandboxSession> {
  const sandbox = await SrtSandbox.start(layout, record, options);
  return createSrtView(sandbox, record.ports, true);
}

/** The session a template prepares through, reporting each command it runs. */
function withProgress(
  session: Experimental_SandboxSession,
  progress: (event: SrtProgressEvent) => void,
): Experimental_SandboxSession {
  const report = (command: string) =>
    progress({ phase: 'template', message: command.split('\n')[0]!.slice(0, 200) });
  return {
    ...session,
    run: options => {
      report(options.command);
      return session.run(options);
    },
    spawn: options => {
      report(options.command);
      return session.spawn(options);
    },
  };
}

function tail(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 2000 ? `…${trimmed.slice(-2000)}` : trimmed || '(no output)';
}
