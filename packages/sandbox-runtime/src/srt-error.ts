// The shared core has no index yet, so its errors are imported by path; switch to
// '@internal/sandbox-core' once it exports them.
import { SandboxError } from '@internal/sandbox-core';

/**
 * Why srt could not fence a sandbox. Each reason has its own fix, which the message names.
 * - missing-binary: bwrap, socat or rg (macOS: rg) is not installed or not where the runtime settings say.
 * - unsupported-platform: Windows, or another platform srt does not fence.
 * - userns-restricted: the kernel (Ubuntu's AppArmor sysctl) refuses the user namespaces bwrap needs.
 * - apparmor-bwrap-profile: the bwrap-userns-restrict profile denies the capabilities srt's seccomp helper needs.
 * - seccomp-unavailable: srt's seccomp helper cannot start for another reason (a container, LXC…).
 * - container-proc: bwrap cannot mount /proc, as in an unprivileged Docker container.
 * - runtime-conflict: srt is process-wide and was started with other runtime settings.
 * - refused: srt refused the sandbox (its configuration, its proxy, its wrapper).
 * - probe-failed: a trivial fenced command failed for a reason not recognised above.
 * - supervisor-exited: the fenced process ended (set by the layers above).
 * - setup-failed: a setup command of the sandbox failed (set by the layers above).
 */
export type SrtErrorReason =
  | 'missing-binary'
  | 'unsupported-platform'
  | 'userns-restricted'
  | 'apparmor-bwrap-profile'
  | 'seccomp-unavailable'
  | 'container-proc'
  | 'runtime-conflict'
  | 'refused'
  | 'probe-failed'
  | 'supervisor-exited'
  | 'setup-failed';

/** srt cannot run on this host, refused the sandbox, or the fenced process stopped. */
export class SrtError extends SandboxError {
  override name = 'SrtError';
  readonly reason: SrtErrorReason;

  constructor(message: string, reason: SrtErrorReason, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }

  static override isInstance(error: unknown): error is SrtError {
    return SandboxError.isInstance(error) && (error as { name?: unknown }).name === 'SrtError';
  }
}

/** The exact commands the fixes name, shared by the errors and by doctor(). */
export const SRT_FIXES = {
  installLinux: 'sudo apt install bubblewrap socat ripgrep',
  installMac: 'brew install ripgrep',
  usernsSysctl: [
    'sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0',
    "echo 'kernel.apparmor_restrict_unprivileged_userns=0' | sudo tee /etc/sysctl.d/60-srt-userns.conf",
  ].join('\n'),
  allowAllUnixSockets: 'runtime: { allowAllUnixSockets: true } (or SRT_ALLOW_ALL_UNIX_SOCKETS=1)',
  weakerNested: 'runtime: { enableWeakerNestedSandbox: true }',
} as const;
