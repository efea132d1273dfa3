import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, resolve } from 'node:path';

import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { DEFAULT_ALLOWED_DOMAINS } from './default-allowed-domains.js';
import { validateAllowedDomains } from './domain-pattern.js';
import type { SandboxLayout } from './layout.js';
import type { ResolvedRuntimeSettings } from './runtime-settings.js';

/** What one sandbox may read, write and reach, as its options say it. */
export interface FenceSettings {
  readonly layout: SandboxLayout;
  /** The sandbox's working directory, read-write. Default: `layout.workspace`. */
  readonly workspace?: string;
  /** Directories the sandbox reads but does not write, re-opened even under a hidden home. */
  readonly readOnlyWorkspaces?: readonly string[];
  /** Paths re-opened for reading under a hidden home or a `denyRead` entry. */
  readonly allowRead?: readonly string[];
  /** Paths hidden from the sandbox (an empty directory, or /dev/null for a file). */
  readonly denyRead?: readonly string[];
  /** Paths under a writable directory that stay read-only. */
  readonly denyWrite?: readonly string[];
  /** Hide the user's home directory (default true): inside it is an empty directory. */
  readonly hideHome?: boolean;
  /** Hosts the sandbox may reach. Default: DEFAULT_ALLOWED_DOMAINS. */
  readonly allowedDomains?: readonly string[];
}

/** The facts about the host the configuration depends on, gathered by `hostView()`. */
export interface HostView {
  readonly homedir: string;
  /** The node binary that runs the supervisor inside the sandbox (its real path). */
  readonly nodePath: string;
  readonly xdgRuntimeDir: string | undefined;
  readonly uid: number | undefined;
}

export interface SrtFilesystemRules {
  readonly denyRead: string[];
  readonly allowRead: string[];
  readonly allowWrite: string[];
  readonly denyWrite: string[];
}

export interface FenceConfig {
  /** srt's per-wrap configuration (`customConfig` of wrapWithSandbox). */
  readonly customConfig: Partial<SandboxRuntimeConfig> & { filesystem: SrtFilesystemRules };
  /** The validated allow list, registered for the sandbox's commandId. */
  readonly allowedDomains: string[];
  /**
   * Paths under the hidden home that the sandbox can read although the options did not re-open
   * them, because it could not run without them (the node install that runs the supervisor).
   */
  readonly reopenedPaths: string[];
  /** The host's service and container-engine sockets, hidden whatever the options say. */
  readonly hiddenSockets: string[];
  /** The resolved working directory. */
  readonly workspace: string;
}

/** Reads the host facts; pass `nodePath` when the supervisor runs on another node binary. */
export function hostView(nodePath: string = process.execPath): HostView {
  return {
    homedir: homedir(),
    nodePath: resolve(nodePath),
    xdgRuntimeDir: process.env.XDG_RUNTIME_DIR || undefined,
    uid: process.getuid?.(),
  };
}

const isWithin = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

/**
 * The sockets that drive the host: the session and system D-Bus, Docker, containerd and Podman
 * (rootful and rootless). srt skips the ones that do not exist when it wraps.
 */
export function hostSocketPaths(host: Pick<HostView, 'xdgRuntimeDir' | 'uid'>): string[] {
  const runtimeDir = host.xdgRuntimeDir ?? (host.uid === undefined ? undefined : `/run/user/${host.uid}`);
  return [
    '/run/dbus',
    '/var/run/dbus',
    '/run/docker.sock',
    '/var/run/docker.sock',
    '/run/containerd',
    '/var/run/containerd',
    '/run/podman',
    '/var/run/podman',
    ...(runtimeDir ? [`${runtimeDir}/bus`, `${runtimeDir}/docker.sock`, `${runtimeDir}/podman`] : []),
  ];
}

/** `~` and `~/x` as a shell reads them; everything else must be absolute. */
function absolutePath(path: string, option: string, home: string): string {
  if (typeof path !== 'string' || path === '') {
    throw new SandboxOptionsError(`${option} has an empty or non-string entry.`);
  }
  const expanded = path === '~' ? home : path.startsWith('~/') ? home + path.slice(1) : path;
  if (!isAbsolute(expanded)) {
    throw new SandboxOptionsError(
      `${option} entry ${JSON.stringify(path)} is relative: give an absolute path, or one starting with ~/.`,
    );
  }
  // Glob characters are srt's to expand; only a plain path is normalised.
  return /[*?[\]{}]/.test(expanded) ? expanded : resolve(expanded);
}

const absoluteAll = (paths: readonly string[] | undefined, option: string, home: string): string[] => {
  if (paths === undefined) return [];
  if (!Array.isArray(paths)) throw new SandboxOptionsError(`${option} must be an array of paths.`);
  return paths.map(path => absolutePath(path, option, home));
};

/**
 * The part of a node install the supervisor needs: its prefix (`<prefix>/bin/node`), or the
 * directory of the binary, never the home itself or above it (then the binary alone).
 */
export function nodeInstallPrefix(nodePath: string, home: string): string {
  const binDir = dirname(nodePath);
  const prefix = basename(binDir) === 'bin' ? dirname(binDir) : binDir;
  return isWithin(home, prefix) ? nodePath : prefix;
}

const unique = (paths: string[]): string[] => [...new Set(paths)];

/** Builds srt's per-wrap rules for one sandbox. Pure: every fact comes from `host`. */
export function buildFenceConfig(settings: FenceSettings, host: HostView): FenceConfig {
  const { layout } = settings;
  const home = resolve(host.homedir);
  const hideHome = settings.hideHome ?? true;

  const workspace =
    settings.workspace === undefined ? layout.workspace : absolutePath(settings.workspace, 'workspace', home);
  if (isWithin(layout.sandboxDir, workspace)) {
    throw new SandboxOptionsError(
      `workspace ${workspace} contains the sandbox's own directory ${layout.sandboxDir}, which would make its ` +
        `settings and supervisor writable: choose a narrower workspace, or another \`directory\` for the sandboxes.`,
    );
  }
  if (isWithin(workspace, layout.sandboxDir) && !isWithin(workspace, layout.writableDir)) {
    throw new SandboxOptionsError(
      `workspace ${workspace} is inside ${layout.sandboxDir} but not under ${layout.writableDir}: ` +
        `omit it to use ${layout.workspace}.`,
    );
  }
  const readOnlyWorkspaces = absoluteAll(settings.readOnlyWorkspaces, 'readOnlyWorkspaces', home);
  const allowRead = absoluteAll(settings.allowRead, 'allowRead', home);
  const denyRead = absoluteAll(settings.denyRead, 'denyRead', home);
  const denyWrite = absoluteAll(settings.denyWrite, 'denyWrite', home);
  const allowedDomains = validateAllowedDomains(settings.allowedDomains ?? DEFAULT_ALLOWED_DOMAINS);
  const hiddenSockets = hostSocketPaths(host);

  // The supervisor is `node <supervisorDir>/supervisor.js`: both must stay readable when the home
  // (or a denyRead entry) hides where they live. Listing them costs nothing where nothing hides them.
  const reopenedPaths: string[] = [];
  if (hideHome && isWithin(host.nodePath, home)) {
    reopenedPaths.push(nodeInstallPrefix(host.nodePath, home));
  }
  // The other sandboxes of the directory are hidden, their files and their homes' state: this
  // sandbox sees its own directory only (re-opened below by its reads and its writable part). A
  // hidden home hides the default directory already. Not when the directory holds the node
  // install or is the root, whose hiding would break the rest.
  const sandboxesDir = layout.directory;
  const hideSandboxes =
    !(hideHome && isWithin(sandboxesDir, home)) &&
    sandboxesDir !== '/' &&
    !isWithin(host.nodePath, sandboxesDir);
  const supervisorReads = [layout.supervisorDir];

  const filesystem: SrtFilesystemRules = {
    denyRead: unique([
      ...(hideHome ? [home] : []),
      ...(hideSandboxes ? [sandboxesDir] : []),
      ...hiddenSockets,
      // sandbox.json holds what the sandbox was created with, its env's real credentials included
      // (they are masked on their way in, from this record): out of its reach, as the spec says.
      layout.settingsFile,
      ...denyRead,
    ]),
    allowRead: unique([...allowRead, ...readOnlyWorkspaces, ...reopenedPaths, ...supervisorReads]),
    allowWrite: unique([layout.writableDir, workspace]),
    denyWrite: unique(denyWrite),
  };
  return { customConfig: { filesystem }, allowedDomains, reopenedPaths, hiddenSockets, workspace };
}

/**
 * srt's process-wide configuration. The filesystem rules are each wrap's; the network allow list
 * is empty because each sandbox registers its own under its commandId (or, with an srt that
 * cannot, `fallbackDomains` is the one list of the process). `credentials: {}` installs srt's
 * credential injector and `tlsTerminate: {}` lets its proxy see, and swap, the placeholders.
 */
export function buildGlobalSrtConfig(
  runtime: ResolvedRuntimeSettings,
  fallbackDomains: readonly string[] = [],
): SandboxRuntimeConfig {
  return {
    network: {
      allowedDomains: [...fallbackDomains],
      deniedDomains: [],
      tlsTerminate: {},
      ...(runtime.allowAllUnixSockets ? { allowAllUnixSockets: true } : {}),
    },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    credentials: {},
    ...(runtime.bwrapPath ? { bwrapPath: runtime.bwrapPath } : {}),
    ...(runtime.socatPath ? { socatPath: runtime.socatPath } : {}),
    ...(runtime.ripgrepPath ? { ripgrep: { command: runtime.ripgrepPath } } : {}),
    ...(runtime.enableWeakerNestedSandbox ? { enableWeakerNestedSandbox: true } : {}),
  } as SandboxRuntimeConfig;
}
