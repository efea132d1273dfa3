/**
 * srt's settings that hold for the whole process (its SandboxManager is a singleton): the first
 * sandbox applies them, and a later one asking for others is refused.
 */
export interface SrtRuntimeSettings {
  /** bwrap when it is not on the PATH (Linux). */
  bwrapPath?: string;
  /** socat when it is not on the PATH (Linux); env SRT_SOCAT. */
  socatPath?: string;
  /** rg when it is not on the PATH; env SRT_RIPGREP. */
  ripgrepPath?: string;
  /**
   * Run without srt's seccomp filter, which blocks Unix sockets, where the host cannot run it
   * (Ubuntu's AppArmor restrictions, some containers); env SRT_ALLOW_ALL_UNIX_SOCKETS=1.
   */
  allowAllUnixSockets?: boolean;
  /** srt's mode for a host that already isolates it, such as an unprivileged Docker container. */
  enableWeakerNestedSandbox?: boolean;
}

/** The settings as applied: explicit values first, then the environment, then srt's defaults. */
export interface ResolvedRuntimeSettings {
  readonly bwrapPath: string | undefined;
  readonly socatPath: string | undefined;
  readonly ripgrepPath: string | undefined;
  readonly allowAllUnixSockets: boolean;
  readonly enableWeakerNestedSandbox: boolean;
}

const nonEmpty = (value: string | undefined): string | undefined => (value ? value : undefined);

export function resolveRuntimeSettings(
  settings: SrtRuntimeSettings = {},
  env: NodeJS.ProcessEnv = process.env,
): ResolvedRuntimeSettings {
  return {
    bwrapPath: nonEmpty(settings.bwrapPath),
    socatPath: nonEmpty(settings.socatPath) ?? nonEmpty(env.SRT_SOCAT),
    ripgrepPath: nonEmpty(settings.ripgrepPath) ?? nonEmpty(env.SRT_RIPGREP),
    allowAllUnixSockets: settings.allowAllUnixSockets ?? env.SRT_ALLOW_ALL_UNIX_SOCKETS === '1',
    enableWeakerNestedSandbox: settings.enableWeakerNestedSandbox ?? false,
  };
}

/** The first setting in which `a` and `b` differ, or undefined when they are the same. */
export function differingSetting(
  a: ResolvedRuntimeSettings,
  b: ResolvedRuntimeSettings,
): keyof ResolvedRuntimeSettings | undefined {
  const keys: (keyof ResolvedRuntimeSettings)[] = [
    'bwrapPath',
    'socatPath',
    'ripgrepPath',
    'allowAllUnixSockets',
    'enableWeakerNestedSandbox',
  ];
  return keys.find(key => a[key] !== b[key]);
}
