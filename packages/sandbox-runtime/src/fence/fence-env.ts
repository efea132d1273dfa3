import { join } from 'node:path';

/**
 * The environment a fenced process starts with. Nothing of the host's comes along but PATH, LANG
 * and USER: the application's secrets live in its environment. srt adds its proxy and CA
 * variables on top (through bwrap's --setenv on Linux), and the TMPDIR of the /tmp edit.
 */
export function buildFenceEnv(options: {
  readonly hostEnv: NodeJS.ProcessEnv;
  /** The sandbox's HOME (host path, the same inside). */
  readonly home: string;
  /** TMPDIR inside. */
  readonly tmpdir: string;
  /** Added last; the caller's defaults (they may override the above). */
  readonly extra?: Readonly<Record<string, string>>;
}): Record<string, string> {
  const { hostEnv, home, tmpdir, extra } = options;
  const localBin = join(home, '.local', 'bin');
  const env: Record<string, string> = {
    // Global npm installs land in the sandbox's home (NPM_CONFIG_PREFIX), whose bin comes first.
    PATH: hostEnv.PATH ? `${localBin}:${hostEnv.PATH}` : `${localBin}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    NPM_CONFIG_PREFIX: join(home, '.local'),
    TMPDIR: tmpdir,
    SHELL: '/bin/bash',
    // Node's fetch ignores HTTP(S)_PROXY unless asked; srt's proxy is the only way out.
    NODE_USE_ENV_PROXY: '1',
    IS_SANDBOX: '1',
    // Corepack would fetch the newest pnpm, whose store locks under /tmp; keep the one it knows.
    COREPACK_DEFAULT_TO_LATEST: '0',
  };
  if (hostEnv.LANG) env.LANG = hostEnv.LANG;
  if (hostEnv.USER) env.USER = hostEnv.USER;
  return { ...env, ...extra };
}
