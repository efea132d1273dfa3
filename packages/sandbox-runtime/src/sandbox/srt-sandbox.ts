/**
 * One running srt sandbox: the fenced supervisor, its allow list, its credentials and its forwarded
 * ports. Views (the session handed to the harness, and each fork) sit on top and share it.
 */
import {
  PortForwarder,
  SandboxStoppedError,
  SupervisorProcess,
  locateSupervisorScript,
  type SupervisorLink,
} from '@internal/sandbox-core';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FencedProcess } from '../fence/launch-fenced.js';
import { launchFenced } from '../fence/launch-fenced.js';
import type { SandboxLayout } from '../fence/layout.js';
import { diagnoseFailure } from '../fence/preflight.js';
import { srtRuntime } from '../fence/srt-runtime.js';
import { SrtError } from '../srt-error.js';
import type { SrtRecord, SrtSandboxOptions } from '../srt-options.js';
import { narrowToCredentialPorts } from '../network/credential-ports.js';
import { CredentialSet } from './credential-set.js';

/** How long a process of the sandbox gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 1_500;

export class SrtSandbox {
  readonly forwarder: PortForwarder;
  /** The sandbox-wide credentials: those masked in its default environment. */
  readonly credentials: CredentialSet;
  private state: 'running' | 'stopped' | 'destroyed' = 'running';
  private stopping: Promise<void> | undefined;
  /** The allow list a network policy set, replacing the created one; undefined = as created. */
  private policyDomains: string[] | undefined;
  private readonly credentialSets = new Set<CredentialSet>();
  private readonly unsubscribeShutdown: () => void;

  private constructor(
    readonly layout: SandboxLayout,
    readonly record: SrtRecord,
    readonly workspace: string,
    private readonly fenced: FencedProcess,
    private readonly supervisor: SupervisorProcess,
    credentials: CredentialSet,
  ) {
    this.forwarder = new PortForwarder(() => this.link());
    credentials.onHostsChanged = () => this.applyDomains();
    this.credentials = credentials;
    this.credentialSets.add(credentials);
    // srt's own signal handling resets it without exiting; ours stops the sandboxes first.
    this.unsubscribeShutdown = srtRuntime().onShutdown(() => this.stop());
    supervisor.link.onClose(() => {
      if (this.state === 'running') void this.stop();
    });
  }

  static async start(
    layout: SandboxLayout,
    record: SrtRecord,
    options: Pick<SrtSandboxOptions, 'runtime' | 'abortSignal'>,
  ): Promise<SrtSandbox> {
    // The supervisor is copied in at every start, so a sandbox always runs the one of this package,
    // from a directory the sandbox can read but not change.
    const script = join(layout.supervisorDir, 'supervisor.js');
    await copyFile(locateSupervisorScript(), script);
    const runtime = srtRuntime();
    const fenced = await launchFenced(
      {
        layout,
        workspace: record.workspace,
        readOnlyWorkspaces: record.readOnlyWorkspaces,
        hideHome: record.hideHome,
        allowRead: record.allowRead,
        denyRead: record.denyRead,
        denyWrite: record.denyWrite,
        allowedDomains: record.allowedDomains,
        runtime: options.runtime,
        signal: options.abortSignal,
      },
      // Node reads NODE_USE_ENV_PROXY at start-up and then sets up its proxy agent, which costs
      // the supervisor ~35 ms and buys it nothing: it dials only the sandbox's own loopback. Its
      // commands get the variable back through the supervisor's configuration.
      ['/usr/bin/env', '-u', 'NODE_USE_ENV_PROXY', process.execPath, script],
    );
    // The sandbox-wide defaults go to the supervisor, which applies them over srt's own variables
    // for every command; a real credential among them is masked like one in a command's env.
    const credentials = new CredentialSet(runtime, () => undefined, record.credentialVariables);
    const defaults = { NODE_USE_ENV_PROXY: '1', ...record.env };
    const env = record.brokerCredentials ? credentials.maskEnvironment(defaults) : defaults;
    let supervisor: SupervisorProcess;
    try {
      supervisor = await SupervisorProcess.connect(
        fenced.child,
        {
          processTag: `srt:${record.sandboxId}`,
          defaultWorkingDirectory: fenced.config.workspace,
          env,
          unsetEnv: [],
          killGraceMs: KILL_GRACE_MS,
          // bwrap gives the sandbox a PID namespace of its own (Linux): kill-all may sweep all of it.
          ownsPidNamespace: process.platform === 'linux',
        },
        {
          abortSignal: options.abortSignal,
          describeFailure: stderr =>
            runtime.hostFacts && runtime.settings
              ? diagnoseFailure(stderr, runtime.hostFacts, runtime.settings).message
              : undefined,
        },
      );
    } catch (error) {
      fenced.cleanup();
      credentials.withdrawAll();
      if (options.abortSignal?.aborted) throw options.abortSignal.reason;
      throw new SrtError(`The sandbox did not start: ${(error as Error).message}`, 'refused', {
        cause: error,
      });
    }
    const sandbox = new SrtSandbox(layout, record, fenced.config.workspace, fenced, supervisor, credentials);
    sandbox.applyDomains();
    return sandbox;
  }

  get id(): string {
    return this.record.sandboxId;
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  get isolatesNetwork(): boolean {
    return this.fenced.isolatesNetwork;
  }

  /** The live link, or SandboxStoppedError. */
  link(): SupervisorLink {
    if (this.state !== 'running' || !this.supervisor.link.isOpen) {
      const why =
        this.supervisor.link.error && this.state === 'running'
          ? ` (${this.supervisor.link.error.message})`
          : '';
      throw new SandboxStoppedError(
        `The srt sandbox "${this.id}" is ${this.state === 'running' ? 'no longer running' : this.state}${why}; ` +
          'resume it to use it again.',
      );
    }
    return this.supervisor.link;
  }

  /** A set of credentials that a view owns and withdraws on release. */
  newCredentialSet(): CredentialSet {
    const set = new CredentialSet(srtRuntime(), () => this.applyDomains(), this.record.credentialVariables);
    this.credentialSets.add(set);
    return set;
  }

  dropCredentialSet(set: CredentialSet): void {
    set.withdrawAll();
    this.credentialSets.delete(set);
    this.applyDomains();
  }

  /** Replaces the allow list (a network policy); credential hosts stay reachable on top. */
  setDomains(domains: string[]): void {
    this.policyDomains = domains;
    this.applyDomains();
  }

  /** Recomputes what the sandbox may reach: its list plus the hosts its credentials go to. */
  private applyDomains(): void {
    if (this.state !== 'running') return;
    const hosts = [...this.credentialSets].flatMap(set => set.hosts);
    const wanted = [...new Set([...(this.policyDomains ?? this.record.allowedDomains), ...hosts])];
    const domains = narrowToCredentialPorts(wanted, hosts);
    srtRuntime().setSandboxDomains(this.fenced.commandId, domains);
  }

  /** Ends every process and the supervisor, withdraws credentials, stops forwarding. Keeps files. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.state === 'running') this.state = 'stopped';
      this.unsubscribeShutdown();
      await this.forwarder.closeAll();
      await this.supervisor.stop();
      this.fenced.cleanup();
      for (const set of this.credentialSets) set.withdrawAll();
      this.credentialSets.clear();
    })();
    return this.stopping;
  }

  markDestroyed(): void {
    this.state = 'destroyed';
  }
}
