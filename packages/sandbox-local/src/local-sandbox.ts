/**
 * Creating, resuming, stopping and destroying a local sandbox: a supervisor process on this host,
 * unfenced, with its state in `<directory>/<sandboxId>/` and host ports leased from a registry on disk.
 */
import { HarnessCapabilityUnsupportedError, type HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';
import {
  assembleNetworkSession,
  checkSandboxId,
  claimSandboxDirectory,
  leasePorts,
  locateSupervisorScript,
  newSandboxId,
  readRecord,
  SandboxCommands,
  SandboxStoppedError,
  SupervisorProcess,
  writeRecord,
  type PortLease,
  type PortProtocol,
} from '@internal/sandbox-core';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import {
  checkLocalOptions,
  DEFAULT_LOCAL_DIRECTORY,
  localRecordSchema,
  type LocalRecord,
  type LocalSandboxOptions,
  type LocalSandboxResumeOptions,
} from './local-options.js';

export type LocalNetworkSandboxSession = HarnessV1NetworkSandboxSession & {
  /** The sandbox's own directory (state, and the default workspace). */
  readonly directory: string;
  /** Ends every process the sandbox started, descendants included, and keeps it usable. */
  killAllProcesses(): Promise<number>;
};

/** How long a process gets between SIGTERM and SIGKILL when the sandbox ends it. */
const KILL_GRACE_MS = 1_500;

export async function createLocalNetworkSandboxSession(
  options: LocalSandboxOptions = {},
): Promise<LocalNetworkSandboxSession> {
  const checked = checkLocalOptions(options);
  checked.abortSignal?.throwIfAborted();
  const root = checked.directory ?? DEFAULT_LOCAL_DIRECTORY;
  const sandboxId = checked.sandboxId ?? newSandboxId('local');
  const directory = join(root, sandboxId);
  await mkdir(root, { recursive: true });
  await claimSandboxDirectory(directory, sandboxId);
  try {
    const workspace = checked.workspace ?? join(directory, 'workspace');
    await mkdir(workspace, { recursive: true });
    const record: LocalRecord = {
      version: 1,
      kind: 'local',
      sandboxId,
      createdAt: new Date().toISOString(),
      workspace,
      portCount: checked.portCount ?? 1,
      env: checked.env ?? {},
      ports: [],
    };
    await writeRecord(directory, record);
    return await start(root, directory, record, checked.abortSignal);
  } catch (error) {
    // A sandbox that failed to start is not left half made.
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

export async function resumeLocalNetworkSandboxSession(
  options: LocalSandboxResumeOptions,
): Promise<LocalNetworkSandboxSession> {
  const sandboxId = checkSandboxId(options?.sandboxId);
  options.abortSignal?.throwIfAborted();
  const root = options.directory ?? DEFAULT_LOCAL_DIRECTORY;
  const directory = join(root, sandboxId);
  const record = await readRecord(directory, sandboxId, localRecordSchema);
  await mkdir(record.workspace, { recursive: true });
  return start(root, directory, record, options.abortSignal);
}

async function start(
  root: string,
  directory: string,
  record: LocalRecord,
  abortSignal: AbortSignal | undefined,
): Promise<LocalNetworkSandboxSession> {
  const lease = await leasePorts({
    count: record.portCount,
    owner: record.sandboxId,
    registryDirectory: join(root, '.ports'),
    preferred: record.ports,
  });
  let supervisor: SupervisorProcess;
  try {
    if (record.ports.join() !== lease.ports.join())
      await writeRecord(directory, { ...record, ports: [...lease.ports] });
    const child = spawn(process.execPath, [locateSupervisorScript()], {
      cwd: record.workspace,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    supervisor = await SupervisorProcess.connect(
      child,
      {
        processTag: `${record.sandboxId}@${createHash('sha256').update(directory).digest('hex').slice(0, 12)}`,
        defaultWorkingDirectory: record.workspace,
        env: record.env,
        unsetEnv: [],
        killGraceMs: KILL_GRACE_MS,
      },
      { abortSignal },
    );
  } catch (error) {
    await lease.release();
    throw error;
  }
  return session(directory, record, supervisor, lease);
}

function session(
  directory: string,
  record: LocalRecord,
  supervisor: SupervisorProcess,
  lease: PortLease,
): LocalNetworkSandboxSession {
  let state: 'running' | 'stopped' | 'destroyed' = 'running';
  let stopping: Promise<void> | undefined;
  const link = () => {
    if (state !== 'running') {
      throw new SandboxStoppedError(
        `The local sandbox "${record.sandboxId}" is ${state}; resume it to use it again.`,
      );
    }
    return supervisor.link;
  };
  const commands = new SandboxCommands({
    description:
      `Local sandbox "${record.sandboxId}" with no isolation: commands run through /bin/bash as ` +
      `${userInfo().username} on this host, starting in ${record.workspace}.`,
    link,
  });
  const stop = () =>
    (stopping ??= (async () => {
      if (state === 'running') state = 'stopped';
      await supervisor.stop();
      await lease.release();
    })());

  return assembleNetworkSession(
    {
      id: record.sandboxId,
      defaultWorkingDirectory: record.workspace,
      commands,
      ports: {
        get ports() {
          return state === 'running' ? lease.ports : [];
        },
        async endpoint(port: number, protocol: PortProtocol) {
          link();
          if (!lease.ports.includes(port)) {
            throw new HarnessCapabilityUnsupportedError({
              message: `Port ${port} is not one of this local sandbox's ports (${lease.ports.join(', ') || 'none'}).`,
            });
          }
          return { url: `${protocol}://127.0.0.1:${port}` };
        },
      },
      stop,
      async destroy() {
        await stop();
        state = 'destroyed';
        // The sandbox's own directory only: a workspace the caller named lives elsewhere and is theirs.
        await rm(directory, { recursive: true, force: true });
      },
    },
    {
      directory,
      killAllProcesses: () => link().killAll(),
    },
  );
}
