import { HarnessCapabilityUnsupportedError } from '@ai-sdk/harness';
import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { describe, expect, it, vi } from 'vitest';

import { SrtError } from '../srt-error.js';
import type { FactSources } from './preflight.js';
import { SrtRuntime, type SrtManager, type SrtRuntimeOptions } from './srt-runtime.js';

const hostWithEverything: FactSources = {
  platform: 'linux',
  env: { PATH: '/usr/bin' },
  readFile: () => undefined,
  exists: () => false,
  isExecutable: path => path.startsWith('/usr/bin/') || path.startsWith('/opt/'),
};

class FakeRegistry {
  readonly map = new Map<string, { sentinel: string; real: string; hosts: readonly string[] }>();
  registerWithSentinel(name: string, sentinel: string, real: string, hosts: readonly string[]) {
    const existing = this.map.get(name);
    if (existing) {
      Object.assign(existing, { real, hosts });
      return existing.sentinel;
    }
    this.map.set(name, { sentinel, real, hosts });
    return sentinel;
  }
  clear() {
    this.map.clear();
  }
  get size() {
    return this.map.size;
  }
}

function fakeManager(options: { perCommandLists: boolean }) {
  const registry = new FakeRegistry();
  const lists = new Map<string, string[]>();
  const manager = {
    initialize: vi.fn(async (_config: SandboxRuntimeConfig) => {}),
    wrapWithSandbox: vi.fn(async (command: string) => `bwrap -- ${command}`),
    updateConfig: vi.fn((_config: SandboxRuntimeConfig) => {}),
    cleanupAfterCommand: vi.fn(),
    reset: vi.fn(async () => registry.clear()),
    getSentinelRegistry: () => registry,
    getMitmCA: () => ({
      certPath: '/tmp/srt-ca-x/ca.crt',
      trustBundlePath: '/tmp/srt-ca-y/trust-bundle.crt',
    }),
    ...(options.perCommandLists
      ? {
          registerCommandNetworkLists: (id: string, l: { allowedDomains?: string[] }) =>
            lists.set(id, l.allowedDomains!),
          unregisterCommandNetworkLists: (id: string) => lists.delete(id),
        }
      : {}),
  } satisfies SrtManager;
  return { manager, registry, lists };
}

const runtimeWith = (manager: SrtManager, probe: SrtRuntimeOptions['probe'] = false) =>
  new SrtRuntime(manager, {
    handleSignals: false,
    probe,
    factSources: hostWithEverything,
    staleSocketDir: false,
  });

describe('SrtRuntime.ensure', () => {
  it('initialises srt once, with an empty global allow list, TLS termination and credentials', async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    const runtime = runtimeWith(manager);
    await Promise.all([runtime.ensure(), runtime.ensure({})]);
    await runtime.ensure();
    expect(manager.initialize).toHaveBeenCalledTimes(1);
    expect(manager.initialize.mock.calls[0]![0]).toMatchObject({
      network: { allowedDomains: [], tlsTerminate: {} },
      credentials: {},
    });
  });

  it('refuses other runtime settings, naming the setting, also while srt is starting', async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    const runtime = runtimeWith(manager);
    const first = runtime.ensure({ socatPath: '/opt/socat' });
    await expect(runtime.ensure({ socatPath: '/opt/socat', allowAllUnixSockets: true })).rejects.toThrow(
      /runtime.allowAllUnixSockets/,
    );
    await first;
    const error = await runtime.ensure({ socatPath: '/usr/bin/socat' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SrtError);
    expect((error as SrtError).reason).toBe('runtime-conflict');
    expect((error as SrtError).message).toContain('runtime.socatPath');
    expect(manager.initialize.mock.calls[0]![0]).toMatchObject({ socatPath: '/opt/socat' });
  });

  it('checks the host first and reports what is missing', async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    const runtime = new SrtRuntime(manager, {
      handleSignals: false,
      probe: false,
      staleSocketDir: false,
      factSources: { ...hostWithEverything, isExecutable: () => false },
    });
    await expect(runtime.ensure()).rejects.toMatchObject({ reason: 'missing-binary' });
    expect(manager.initialize).not.toHaveBeenCalled();
  });

  it('resets srt and explains a failed probe, and tries again on the next sandbox', async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    let answer = { ok: false, stderr: 'apply-seccomp: write /proc/self/setgroups: Permission denied' };
    const runtime = runtimeWith(manager, async () => answer);
    await expect(runtime.ensure()).rejects.toMatchObject({ reason: 'seccomp-unavailable' });
    expect(manager.reset).toHaveBeenCalledTimes(1);
    expect(runtime.settings).toBeUndefined();
    answer = { ok: true, stderr: '' };
    await runtime.ensure({ allowAllUnixSockets: true });
    expect(runtime.settings?.allowAllUnixSockets).toBe(true);
  });
});

describe('SrtRuntime.ensure, concurrently', () => {
  it('lets a sandbox waiting on a failed start try again itself', async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    const answers = [
      { ok: false, stderr: 'odd failure' },
      { ok: true, stderr: '' },
    ];
    const runtime = runtimeWith(manager, async () => answers.shift()!);
    const [first, second] = await Promise.allSettled([runtime.ensure(), runtime.ensure()]);
    expect(first).toMatchObject({ status: 'rejected', reason: { reason: 'probe-failed' } });
    expect(second).toMatchObject({ status: 'fulfilled' });
    expect(manager.initialize).toHaveBeenCalledTimes(2);
    expect(runtime.settings).toBeDefined();
  });
});

describe('SrtRuntime allow lists', () => {
  it('registers one list per command when srt can', async () => {
    const { manager, lists } = fakeManager({ perCommandLists: true });
    const runtime = runtimeWith(manager);
    await runtime.ensure();
    expect(runtime.isolatesNetwork).toBe(true);
    const a = runtime.newCommandId();
    const b = runtime.newCommandId();
    expect(a.length).toBeGreaterThanOrEqual(22);
    runtime.setSandboxDomains(a, ['registry.npmjs.org']);
    runtime.setSandboxDomains(b, ['api.anthropic.com']);
    expect(Object.fromEntries(lists)).toEqual({ [a]: ['registry.npmjs.org'], [b]: ['api.anthropic.com'] });
    runtime.unregister(a);
    expect([...lists.keys()]).toEqual([b]);
    expect(manager.updateConfig).not.toHaveBeenCalled();
  });

  it('falls back to the one list of the process with srt 0.0.79, and fails closed', async () => {
    const { manager } = fakeManager({ perCommandLists: false });
    const runtime = runtimeWith(manager);
    await runtime.ensure();
    expect(runtime.isolatesNetwork).toBe(false);
    runtime.setSandboxDomains('a'.repeat(22), ['registry.npmjs.org', 'api.anthropic.com']);
    expect(manager.updateConfig).toHaveBeenLastCalledWith(
      expect.objectContaining({
        network: expect.objectContaining({ allowedDomains: ['registry.npmjs.org', 'api.anthropic.com'] }),
      }),
    );
    // The same hosts, in any order, run side by side.
    runtime.setSandboxDomains('b'.repeat(22), ['api.anthropic.com', 'registry.npmjs.org']);
    expect(() => runtime.setSandboxDomains('c'.repeat(22), ['registry.npmjs.org'])).toThrow(
      HarnessCapabilityUnsupportedError,
    );
    runtime.unregister('a'.repeat(22));
    runtime.unregister('b'.repeat(22));
    expect(manager.updateConfig).toHaveBeenLastCalledWith(
      expect.objectContaining({ network: expect.objectContaining({ allowedDomains: [] }) }),
    );
    // With the others gone, a sandbox with other hosts may start.
    runtime.setSandboxDomains('c'.repeat(22), ['registry.npmjs.org']);
  });

  it('validates the hosts', async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    const runtime = runtimeWith(manager);
    await runtime.ensure();
    expect(() => runtime.setSandboxDomains(runtime.newCommandId(), ['*.com'])).toThrow(/\*\.com/);
  });
});

describe('SrtRuntime credentials and reset', () => {
  it('registers credentials with srt only once it runs, and forgets them on reset', async () => {
    const { manager, registry } = fakeManager({ perCommandLists: true });
    const runtime = runtimeWith(manager);
    const spec = {
      name: 'K',
      placeholder: 'aisdkhc_0123456789',
      realValue: 'real',
      hosts: ['api.anthropic.com'],
    };
    expect(() => runtime.registerCredential(spec)).toThrow(SrtError);
    await runtime.ensure();
    runtime.registerCredential(spec);
    expect(registry.size).toBe(1);
    await runtime.reset();
    expect(registry.size).toBe(0);
    expect(runtime.settings).toBeUndefined();
    expect(manager.reset).toHaveBeenCalled();
  });

  it("names srt's CA files, which the sandbox must keep reading", async () => {
    const { manager } = fakeManager({ perCommandLists: true });
    expect(runtimeWith(manager).keepPaths()).toEqual([
      '/tmp/srt-ca-x/ca.crt',
      '/tmp/srt-ca-y/trust-bundle.crt',
    ]);
  });
});
