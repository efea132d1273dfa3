import { describe, expect, it } from 'vitest';

import { doctor } from './doctor.js';
import type { FactSources } from './preflight.js';
import { SrtRuntime, type SrtManager } from './srt-runtime.js';

const linuxHost: FactSources = {
  platform: 'linux',
  env: { PATH: '/usr/bin' },
  readFile: () => undefined,
  exists: () => false,
  isExecutable: path => path.startsWith('/usr/bin/'),
};

const manager = {
  initialize: async () => {},
  wrapWithSandbox: async (command: string) => command,
  updateConfig: () => {},
  cleanupAfterCommand: () => {},
  reset: async () => {},
  getSentinelRegistry: () => ({
    registerWithSentinel: (_n: string, s: string) => s,
    clear: () => {},
    size: 0,
  }),
  getMitmCA: () => undefined,
} satisfies SrtManager;

const runtime = (probe: { ok: boolean; stderr: string }) =>
  new SrtRuntime(manager, {
    handleSignals: false,
    staleSocketDir: false,
    factSources: linuxHost,
    probe: async () => probe,
  });

describe('doctor', () => {
  it('runs a fenced command when nothing blocks it', async () => {
    const checks = await doctor({}, { runtime: runtime({ ok: true, stderr: '' }), factSources: linuxHost });
    expect(checks.at(-1)).toEqual({
      name: 'fenced command',
      ok: true,
      detail: 'a trivial command ran under srt',
    });
    expect(checks.every(check => check.ok)).toBe(true);
  });

  it('reports why a fenced command fails', async () => {
    const failing = runtime({ ok: false, stderr: 'bwrap: setting up uid map: Permission denied' });
    const checks = await doctor({}, { runtime: failing, factSources: linuxHost });
    expect(checks.at(-1)).toMatchObject({ name: 'fenced command', ok: false });
    expect(checks.at(-1)?.detail).toContain('kernel.apparmor_restrict_unprivileged_userns=0');
  });

  it('does not start srt on a host missing its programs', async () => {
    const bare = { ...linuxHost, isExecutable: () => false };
    const checks = await doctor({}, { runtime: runtime({ ok: true, stderr: '' }), factSources: bare });
    expect(checks.map(check => check.name)).not.toContain('fenced command');
    expect(checks.filter(check => !check.ok).map(check => check.name)).toEqual(['bwrap', 'socat', 'rg']);
  });
});
