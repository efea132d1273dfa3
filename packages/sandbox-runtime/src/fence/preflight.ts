import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

import { SRT_FIXES, SrtError } from '../srt-error.js';
import type { ResolvedRuntimeSettings } from './runtime-settings.js';

/*
 * What the host must offer before srt can fence anything, in two halves: `gatherHostFacts` reads
 * the host (files, PATH), and the pure `diagnose`, `diagnoseFailure` and `doctorChecks` judge the
 * facts, so each verdict is testable with facts made up in a test.
 */

export type BinaryName = 'bwrap' | 'socat' | 'rg';

export interface BinaryFact {
  readonly name: BinaryName;
  /** What was asked for: a runtime path, an env override, or the bare name looked up on the PATH. */
  readonly requested: string;
  /** Where it was found, executable; undefined when it was not. */
  readonly path: string | undefined;
}

export interface HostFacts {
  readonly platform: NodeJS.Platform;
  /** The binaries srt needs on this platform (none on macOS but rg, which srt 0.0.83 does not use there). */
  readonly binaries: readonly BinaryFact[];
  /** kernel.apparmor_restrict_unprivileged_userns is 1 (Ubuntu 24.04 and later). */
  readonly usernsRestricted: boolean;
  /** /etc/apparmor.d/bwrap-userns-restrict exists (Ubuntu 26.04): bwrap's children get no capability. */
  readonly apparmorBwrapProfile: boolean;
  /** Looks like a container (Docker, Podman, Kubernetes, LXC). */
  readonly inContainer: boolean;
}

/** Where the facts come from; tests pass their own. */
export interface FactSources {
  readonly platform: NodeJS.Platform;
  readonly env: NodeJS.ProcessEnv;
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
  isExecutable(path: string): boolean;
}

export const hostFactSources: FactSources = {
  platform: process.platform,
  env: process.env,
  readFile(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  exists: path => existsSync(path),
  isExecutable(path) {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  },
};

export const USERNS_SYSCTL = '/proc/sys/kernel/apparmor_restrict_unprivileged_userns';
export const APPARMOR_BWRAP_PROFILE = '/etc/apparmor.d/bwrap-userns-restrict';

function findBinary(requested: string, sources: FactSources): string | undefined {
  if (requested.includes('/')) {
    return isAbsolute(requested) && sources.isExecutable(requested) ? requested : undefined;
  }
  for (const dir of (sources.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, requested);
    if (sources.isExecutable(candidate)) return candidate;
  }
  return undefined;
}

export function gatherHostFacts(
  runtime: ResolvedRuntimeSettings,
  sources: FactSources = hostFactSources,
): HostFacts {
  const wanted: [BinaryName, string][] =
    sources.platform === 'linux'
      ? [
          ['bwrap', runtime.bwrapPath ?? 'bwrap'],
          ['socat', runtime.socatPath ?? 'socat'],
          ['rg', runtime.ripgrepPath ?? 'rg'],
        ]
      : sources.platform === 'darwin'
        ? [['rg', runtime.ripgrepPath ?? 'rg']]
        : [];
  const cgroup = sources.readFile('/proc/1/cgroup') ?? '';
  return {
    platform: sources.platform,
    binaries: wanted.map(([name, requested]) => ({ name, requested, path: findBinary(requested, sources) })),
    usernsRestricted: sources.readFile(USERNS_SYSCTL)?.trim() === '1',
    apparmorBwrapProfile: sources.exists(APPARMOR_BWRAP_PROFILE),
    inContainer:
      sources.exists('/.dockerenv') ||
      sources.exists('/run/.containerenv') ||
      /docker|kubepods|containerd|libpod|lxc/.test(cgroup),
  };
}

const PACKAGE_OF: Record<BinaryName, string> = { bwrap: 'bubblewrap', socat: 'socat', rg: 'ripgrep' };
const RUNTIME_OPTION_OF: Record<BinaryName, string> = {
  bwrap: 'runtime.bwrapPath',
  socat: 'runtime.socatPath (or SRT_SOCAT)',
  rg: 'runtime.ripgrepPath (or SRT_RIPGREP)',
};

/** What keeps srt from running at all, judged before any sandbox starts; undefined when nothing does. */
export function diagnose(facts: HostFacts): SrtError | undefined {
  if (facts.platform !== 'linux' && facts.platform !== 'darwin') {
    return new SrtError(
      `srt does not fence processes on ${facts.platform}: ai-sdk-sandbox-runtime runs on Linux and macOS only. ` +
        `On Windows, run it inside WSL 2.`,
      'unsupported-platform',
    );
  }
  // On macOS srt 0.0.83 never runs rg, so its absence is reported by doctor() but blocks nothing.
  const missing = facts.binaries.filter(binary => binary.path === undefined && facts.platform === 'linux');
  if (missing.length === 0) return undefined;
  const what = missing
    .map(binary =>
      binary.requested.includes('/')
        ? `${binary.name} (not executable at ${binary.requested})`
        : `${binary.name} (not on the PATH)`,
    )
    .join(', ');
  return new SrtError(
    `srt needs ${what}. Install them with \`${SRT_FIXES.installLinux}\`, ` +
      `or name where they are with ${missing.map(binary => RUNTIME_OPTION_OF[binary.name]).join(', ')}. ` +
      `Packages: ${missing.map(binary => PACKAGE_OF[binary.name]).join(', ')}.`,
    'missing-binary',
  );
}

/** Throws the verdict of `diagnose` on this host; returns the facts otherwise. */
export function preflight(
  runtime: ResolvedRuntimeSettings,
  sources: FactSources = hostFactSources,
): HostFacts {
  const facts = gatherHostFacts(runtime, sources);
  const error = diagnose(facts);
  if (error) throw error;
  return facts;
}

const USERNS_FAILURE =
  /setting up uid map: Permission denied|Failed RTM_NEWADDR|No permissions to creat\w* new namespace|Creating new namespace failed/;
const SECCOMP_FAILURE =
  /apply-seccomp:.*(setgroups|uid_map|gid_map|Permission denied|Operation not permitted)/;
const PROC_FAILURE = /Can't mount proc|mount proc.*(Operation not permitted|Permission denied)/i;
const MISSING_FAILURE =
  /Sandbox dependencies not available|not installed|command not found|No such file or directory.*(bwrap|socat)/;

const excerpt = (stderr: string): string => {
  const text = stderr.trim();
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

/**
 * Maps what a fenced command printed when it failed to start (srt's probe at initialisation, or a
 * supervisor that died at once) to the reason and its fix.
 */
export function diagnoseFailure(
  stderr: string,
  facts: HostFacts,
  runtime: ResolvedRuntimeSettings,
): SrtError {
  const said = excerpt(stderr);
  if (USERNS_FAILURE.test(stderr)) {
    return new SrtError(
      `bubblewrap could not create its user namespace (${said}). ` +
        (facts.usernsRestricted
          ? `This host restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns=1). Lift it:\n${SRT_FIXES.usernsSysctl}`
          : `The kernel or a security module refuses unprivileged user namespaces. On Ubuntu 24.04 and later:\n${SRT_FIXES.usernsSysctl}`),
      'userns-restricted',
    );
  }
  if (SECCOMP_FAILURE.test(stderr)) {
    if (facts.apparmorBwrapProfile) {
      return new SrtError(
        `srt's seccomp filter cannot start (${said}): the AppArmor profile ${APPARMOR_BWRAP_PROFILE} denies ` +
          `every capability to what bwrap runs, whatever the sysctl says. Run without the filter: ` +
          `${SRT_FIXES.allowAllUnixSockets}. The filesystem and network rules stay; the host's D-Bus, Docker, ` +
          `containerd and Podman sockets stay hidden; hide any other socket with denyRead.`,
        'apparmor-bwrap-profile',
      );
    }
    if (facts.usernsRestricted) {
      return new SrtError(
        `srt's seccomp filter cannot start (${said}): this host restricts unprivileged user namespaces ` +
          `(kernel.apparmor_restrict_unprivileged_userns=1). Lift it:\n${SRT_FIXES.usernsSysctl}\n` +
          `or run without the filter: ${SRT_FIXES.allowAllUnixSockets}.`,
        'userns-restricted',
      );
    }
    return new SrtError(
      `srt's seccomp filter cannot start (${said})` +
        (facts.inContainer ? ', as is common in containers without CAP_SYS_ADMIN' : '') +
        `. Run without the filter: ${SRT_FIXES.allowAllUnixSockets}.`,
      'seccomp-unavailable',
    );
  }
  if (PROC_FAILURE.test(stderr)) {
    return new SrtError(
      `bubblewrap could not mount /proc (${said})` +
        (facts.inContainer ? ', as in a container without privileges' : '') +
        `. Use srt's mode for a host that already isolates it: ${SRT_FIXES.weakerNested}` +
        (runtime.enableWeakerNestedSandbox
          ? ' (already set: the container needs a more permissive seccomp profile).'
          : '.'),
      'container-proc',
    );
  }
  if (MISSING_FAILURE.test(stderr)) {
    return new SrtError(
      `srt is missing a program (${said}). Install them with \`${SRT_FIXES.installLinux}\`, or name them with ` +
        `runtime: { bwrapPath, socatPath, ripgrepPath }.`,
      'missing-binary',
    );
  }
  return new SrtError(
    `A fenced command failed to start: ${said || '(no output)'}. Run \`ai-sdk-sandbox-runtime doctor\` to check this host.`,
    'probe-failed',
  );
}

export interface DoctorCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly fix?: string;
}

/** The checks a `doctor` command prints, from the facts and, when one ran, a probe's result. */
export function doctorChecks(
  facts: HostFacts,
  runtime: ResolvedRuntimeSettings,
  probe?: { readonly ok: boolean; readonly stderr: string },
): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  const supported = facts.platform === 'linux' || facts.platform === 'darwin';
  checks.push({
    name: 'platform',
    ok: supported,
    detail: supported ? facts.platform : `${facts.platform} is not supported`,
    ...(supported ? {} : { fix: 'Run on Linux or macOS (on Windows, inside WSL 2).' }),
  });
  for (const binary of facts.binaries) {
    const needed = facts.platform === 'linux';
    checks.push({
      name: binary.name,
      ok: binary.path !== undefined || !needed,
      detail:
        binary.path ??
        (needed
          ? `${binary.requested} not found`
          : `${binary.requested} not found (srt does not use it on this platform)`),
      ...(binary.path === undefined
        ? { fix: facts.platform === 'darwin' ? SRT_FIXES.installMac : SRT_FIXES.installLinux }
        : {}),
    });
  }
  if (facts.platform === 'linux') {
    checks.push({
      name: 'user namespaces',
      ok: !facts.usernsRestricted || runtime.allowAllUnixSockets,
      detail: facts.usernsRestricted
        ? 'kernel.apparmor_restrict_unprivileged_userns=1'
        : 'unprivileged user namespaces are not restricted by AppArmor',
      ...(facts.usernsRestricted ? { fix: SRT_FIXES.usernsSysctl } : {}),
    });
    checks.push({
      name: 'AppArmor bwrap profile',
      ok: !facts.apparmorBwrapProfile || runtime.allowAllUnixSockets,
      detail: facts.apparmorBwrapProfile
        ? `${APPARMOR_BWRAP_PROFILE} is present: srt's seccomp filter cannot run`
        : `${APPARMOR_BWRAP_PROFILE} is absent`,
      ...(facts.apparmorBwrapProfile && !runtime.allowAllUnixSockets
        ? { fix: SRT_FIXES.allowAllUnixSockets }
        : {}),
    });
    checks.push({
      name: 'unix sockets',
      ok: true,
      detail: runtime.allowAllUnixSockets
        ? 'allowed (no seccomp filter); the host service and container sockets are hidden'
        : "blocked by srt's seccomp filter",
    });
  }
  if (probe) {
    const verdict = probe.ok ? undefined : diagnoseFailure(probe.stderr, facts, runtime);
    checks.push({
      name: 'fenced command',
      ok: probe.ok,
      detail: probe.ok ? 'a trivial command ran under srt' : verdict!.message,
      ...(verdict ? { fix: `see above (${verdict.reason})` } : {}),
    });
  }
  return checks;
}
