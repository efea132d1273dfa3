import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants as osConstants } from 'node:os';

import { HarnessCapabilityUnsupportedError } from '@ai-sdk/harness';
import { SandboxManager, type SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { SrtError } from '../srt-error.js';
import {
  CredentialBroker,
  type CredentialRegistration,
  type CredentialSpec,
  type SentinelRegistryLike,
} from './credential-broker.js';
import { validateAllowedDomains } from './domain-pattern.js';
import {
  diagnoseFailure,
  hostFactSources,
  preflight,
  type FactSources,
  type HostFacts,
} from './preflight.js';
import {
  differingSetting,
  resolveRuntimeSettings,
  type ResolvedRuntimeSettings,
  type SrtRuntimeSettings,
} from './runtime-settings.js';
import { buildGlobalSrtConfig } from './srt-config.js';
import { removeStaleSrtSockets } from './stale-sockets.js';

/** The part of srt's SandboxManager this layer drives; a test passes a fake. */
export interface SrtManager {
  initialize(config: SandboxRuntimeConfig): Promise<void>;
  wrapWithSandbox(
    command: string,
    binShell?: string,
    customConfig?: Partial<SandboxRuntimeConfig>,
    abortSignal?: AbortSignal,
    options?: { commandId?: string },
  ): Promise<string>;
  updateConfig(config: SandboxRuntimeConfig): void;
  cleanupAfterCommand(): void;
  reset(): Promise<void>;
  getSentinelRegistry(): SentinelRegistryLike;
  getMitmCA(): { readonly certPath: string; readonly trustBundlePath: string } | undefined;
  /** srt 0.0.80 and later: an allow list per commandId. */
  registerCommandNetworkLists?(commandId: string, lists: { allowedDomains?: string[] }): void;
  unregisterCommandNetworkLists?(commandId: string): void;
}

/** Runs a trivially wrapped command and reports how it went; the default spawns it. */
export type SrtProbe = (manager: SrtManager) => Promise<{ ok: boolean; stderr: string }>;

export interface SrtRuntimeOptions {
  /** Install the SIGINT/SIGTERM handling described at `installSignalHandling` (default true). */
  readonly handleSignals?: boolean;
  /** Check a fenced `true` runs before the first sandbox (default: spawn it); false skips it. */
  readonly probe?: SrtProbe | false;
  readonly factSources?: FactSources;
  /** Where srt leaves its sockets, to remove a crashed host's (default: the temp dir); false skips it. */
  readonly staleSocketDir?: string | false;
}

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type Signal = (typeof SIGNALS)[number];
type Listener = NodeJS.SignalsListener;

/** Spawns srt's wrap of `true` and collects its stderr. */
export const spawnProbe: SrtProbe = async manager => {
  const commandId = randomBytes(16).toString('base64url');
  const wrapped = await manager.wrapWithSandbox(
    'true',
    undefined,
    { filesystem: { denyRead: [], allowWrite: [], denyWrite: [] } },
    undefined,
    { commandId },
  );
  try {
    return await new Promise(resolve => {
      const child = spawn('/bin/bash', ['-c', wrapped], {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        if (stderr.length < 8192) stderr += chunk;
      });
      child.once('error', error => resolve({ ok: false, stderr: String(error) }));
      child.once('close', code => resolve({ ok: code === 0, stderr }));
    });
  } finally {
    manager.cleanupAfterCommand();
  }
};

/**
 * srt for this process. Its SandboxManager is a singleton: one configuration, one proxy, one
 * credential registry per process. This class initialises it once, with the runtime settings of
 * the first sandbox, refuses a sandbox asking for other runtime settings, and gives each sandbox
 * its own network allow list and credentials on top.
 */
export class SrtRuntime {
  private active: ResolvedRuntimeSettings | undefined;
  private applied: ResolvedRuntimeSettings | undefined;
  private facts: HostFacts | undefined;
  private starting: Promise<void> | undefined;
  private startingWith: ResolvedRuntimeSettings | undefined;
  /** Allow lists of the live commands, kept in both modes (the fallback compares them). */
  private readonly lists = new Map<string, readonly string[]>();
  private readonly shutdownCallbacks = new Set<() => unknown>();
  private readonly credentials: CredentialBroker;
  private signalHandlers: Map<Signal, Listener> | undefined;
  private exiting = false;

  constructor(
    readonly manager: SrtManager,
    private readonly options: SrtRuntimeOptions = {},
  ) {
    this.credentials = new CredentialBroker(() => manager.getSentinelRegistry());
  }

  /**
   * Whether each sandbox has an allow list of its own (srt 0.0.80 and later). Without, the process
   * has one list, and sandboxes whose lists differ cannot run side by side.
   */
  get isolatesNetwork(): boolean {
    return typeof this.manager.registerCommandNetworkLists === 'function';
  }

  /** The runtime settings srt runs with, once started. */
  get settings(): ResolvedRuntimeSettings | undefined {
    return this.active;
  }

  get hostFacts(): HostFacts | undefined {
    return this.facts;
  }

  /**
   * Starts srt with `settings` (checking the host first), or checks they are the ones it runs
   * with. Throws SrtError: the host's reason, or 'runtime-conflict' naming the setting.
   */
  async ensure(settings?: SrtRuntimeSettings): Promise<ResolvedRuntimeSettings> {
    const wanted = resolveRuntimeSettings(settings);
    for (;;) {
      if (this.active) {
        this.conflictCheck(this.active, wanted);
        return this.active;
      }
      if (!this.starting) break;
      // Another sandbox is starting srt: the same settings wait for it, others are refused now.
      this.conflictCheck(this.startingWith!, wanted);
      await this.starting.catch(() => undefined);
    }
    const start: Promise<void> = this.start(wanted).finally(() => {
      if (this.starting === start) {
        this.starting = undefined;
        this.startingWith = undefined;
      }
    });
    this.starting = start;
    this.startingWith = wanted;
    await start;
    return wanted;
  }

  private conflictCheck(current: ResolvedRuntimeSettings, wanted: ResolvedRuntimeSettings): void {
    const setting = differingSetting(current, wanted);
    if (setting === undefined) return;
    throw new SrtError(
      `srt runs once per process, and this process started it with runtime.${setting} = ` +
        `${JSON.stringify(current[setting]) ?? 'unset'}; this sandbox asks for ` +
        `${JSON.stringify(wanted[setting]) ?? 'unset'}. Give every sandbox of the process the same runtime ` +
        `settings, or run this one in another process.`,
      'runtime-conflict',
    );
  }

  private async start(wanted: ResolvedRuntimeSettings): Promise<void> {
    const facts = preflight(wanted, this.options.factSources ?? hostFactSources);
    // srt wants absolute paths for the binaries it is given; ours may be names on the PATH.
    const found = (name: string) => facts.binaries.find(binary => binary.name === name)?.path;
    const forSrt: ResolvedRuntimeSettings = {
      ...wanted,
      bwrapPath: wanted.bwrapPath ? found('bwrap') : undefined,
      socatPath: wanted.socatPath ? found('socat') : undefined,
    };
    const before = new Map(SIGNALS.map(signal => [signal, process.listeners(signal)] as const));
    const staleDir = this.options.staleSocketDir;
    try {
      await Promise.all([
        staleDir === false ? undefined : removeStaleSrtSockets(staleDir),
        this.manager.initialize(buildGlobalSrtConfig(forSrt)),
      ]);
    } catch (error) {
      await this.manager.reset().catch(() => undefined);
      const text = error instanceof Error ? error.message : String(error);
      throw SrtError.isInstance(error) ? error : diagnoseFailure(text, facts, wanted);
    } finally {
      // Also after a failed start: srt may have added its listeners before failing.
      if (this.options.handleSignals ?? true) this.installSignalHandling(before);
    }
    const probe = this.options.probe ?? spawnProbe;
    if (probe !== false) {
      let result: { ok: boolean; stderr: string };
      try {
        result = await probe(this.manager);
      } catch (error) {
        result = { ok: false, stderr: error instanceof Error ? error.message : String(error) };
      }
      if (!result.ok) {
        await this.manager.reset().catch(() => undefined);
        throw diagnoseFailure(result.stderr, facts, wanted);
      }
    }
    this.facts = facts;
    // What was asked for is what later sandboxes are compared with; srt got the resolved paths.
    this.active = wanted;
    this.applied = forSrt;
  }

  /** A fresh, unguessable id for one wrapped command (srt requires 22 characters or more). */
  newCommandId(): string {
    return randomBytes(16).toString('base64url');
  }

  /**
   * Sets the hosts the command `commandId` may reach, replacing its previous list. With srt 0.0.79
   * (no per-command lists) the process has one list: a second live command with other hosts is
   * refused with HarnessCapabilityUnsupportedError.
   */
  setSandboxDomains(commandId: string, domains: readonly string[]): void {
    const list = validateAllowedDomains(domains);
    if (this.isolatesNetwork) {
      try {
        this.manager.registerCommandNetworkLists!(commandId, { allowedDomains: list });
      } catch (error) {
        throw new SandboxOptionsError(`srt refused the allow list: ${(error as Error).message}`, {
          cause: error,
        });
      }
      this.lists.set(commandId, list);
      return;
    }
    const key = [...list].sort().join('\n');
    for (const [other, theirs] of this.lists) {
      if (other !== commandId && [...theirs].sort().join('\n') !== key) {
        throw new HarnessCapabilityUnsupportedError({
          message:
            'This srt release keeps one network allow list per process, and another sandbox of this process ' +
            'runs with different allowedDomains. Give the sandboxes of the process the same hosts, run this one ' +
            'in a process of its own, or install @anthropic-ai/sandbox-runtime 0.0.80 or later.',
        });
      }
    }
    this.lists.set(commandId, list);
    this.applyGlobalList(list);
  }

  /** Forgets the allow list of `commandId`; call it once the command has exited. */
  unregister(commandId: string): void {
    if (!this.lists.delete(commandId)) return;
    if (this.isolatesNetwork) {
      this.manager.unregisterCommandNetworkLists?.(commandId);
    } else if (this.lists.size === 0) {
      this.applyGlobalList([]);
    }
  }

  private applyGlobalList(list: readonly string[]): void {
    if (this.applied) this.manager.updateConfig(buildGlobalSrtConfig(this.applied, list));
  }

  /**
   * Has srt's proxy put `realValue` where a request to one of `hosts` carries `placeholder`
   * (headers and body, on TLS it terminates). The hosts are not made reachable by this.
   */
  registerCredential(spec: CredentialSpec): CredentialRegistration {
    if (!this.active) {
      throw new SrtError(
        'srt is not started: create the sandbox before registering its credentials.',
        'refused',
      );
    }
    return this.credentials.register(spec);
  }

  /** Wraps `command` for one sandbox; see launchFenced for the spawn. */
  wrap(
    command: string,
    customConfig: Partial<SandboxRuntimeConfig>,
    commandId: string,
    signal?: AbortSignal,
  ): Promise<string> {
    return this.manager.wrapWithSandbox(command, undefined, customConfig, signal, { commandId });
  }

  /** Files under srt's temp directories a sandbox must read (the CA certificate and trust bundle). */
  keepPaths(): string[] {
    const ca = this.manager.getMitmCA();
    return ca ? [ca.certPath, ca.trustBundlePath] : [];
  }

  /** Runs `callback` (stop a sandbox) when a signal ends the process; returns its removal. */
  onShutdown(callback: () => unknown): () => void {
    this.shutdownCallbacks.add(callback);
    return () => this.shutdownCallbacks.delete(callback);
  }

  /**
   * Stops srt (proxy, bridges, CA, registry) and forgets its settings, so the next sandbox starts
   * it again, with its own. Sandboxes still running lose their network. For tests and tools.
   */
  async reset(): Promise<void> {
    await this.starting?.catch(() => undefined);
    for (const commandId of [...this.lists.keys()]) this.unregister(commandId);
    this.credentials.forgetAll();
    this.active = undefined;
    this.applied = undefined;
    this.facts = undefined;
    await this.manager.reset();
  }

  /*
   * srt's initialize() adds `process.once('SIGINT'|'SIGTERM', reset)`: a listener, so Node no longer
   * exits on the signal, and the process lingers after srt has torn down its proxy. We take those
   * listeners out and put one of ours in their place. On a signal, if the application has a
   * listener of its own, it decides what happens (srt's 'exit' handler still removes its sockets
   * when the process exits). If it has none, the process does what it would have done without
   * srt, cleanly: our shutdown callbacks run (they stop the sandboxes), srt is reset, and the
   * process exits with 128 + the signal's number. A stuck step does not hold the exit for more
   * than five seconds.
   */
  private installSignalHandling(before: Map<Signal, Listener[]>): void {
    for (const signal of SIGNALS) {
      // What appeared during initialize() is srt's (a listener the application adds in those few
      // milliseconds would be taken too: a known limit of telling them apart by time).
      const earlier = before.get(signal) ?? [];
      const ours = this.signalHandlers?.get(signal);
      for (const listener of process.listeners(signal)) {
        if (listener !== ours && !earlier.includes(listener)) process.removeListener(signal, listener);
      }
    }
    if (this.signalHandlers) return;
    this.signalHandlers = new Map();
    for (const signal of SIGNALS) {
      const handler: Listener = () => this.onSignal(signal);
      this.signalHandlers.set(signal, handler);
      process.on(signal, handler);
    }
  }

  private onSignal(signal: Signal): void {
    const ours = this.signalHandlers?.get(signal);
    if (process.listeners(signal).some(listener => listener !== ours)) return;
    if (this.exiting) return;
    this.exiting = true;
    const code = 128 + (osConstants.signals[signal] ?? 0);
    const failsafe = setTimeout(() => process.exit(code), 5000);
    void Promise.allSettled([...this.shutdownCallbacks].map(async callback => callback()))
      .then(() => this.manager.reset())
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(failsafe);
        process.exit(code);
      });
  }
}

const RUNTIMES = Symbol.for('ai-sdk-sandbox-runtime.srt-runtimes');

/**
 * The runtime of this process's srt. Shared by every copy of this code that loads the same srt
 * (a bundle and the sources in a test, say), since srt's own state is per copy of srt.
 */
export function srtRuntime(): SrtRuntime {
  const store = ((globalThis as Record<symbol, unknown>)[RUNTIMES] ??= new WeakMap<
    object,
    SrtRuntime
  >()) as WeakMap<object, SrtRuntime>;
  let runtime = store.get(SandboxManager);
  if (!runtime) {
    runtime = new SrtRuntime(SandboxManager);
    store.set(SandboxManager, runtime);
  }
  return runtime;
}
