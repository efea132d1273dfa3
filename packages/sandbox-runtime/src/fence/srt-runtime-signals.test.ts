import type { SandboxRuntimeConfig } from '@anthropic-ai/sandbox-runtime';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { FactSources } from './preflight.js';
import { SrtRuntime, type SrtManager } from './srt-runtime.js';

const linuxHost: FactSources = {
  platform: 'linux',
  env: { PATH: '/usr/bin' },
  readFile: () => undefined,
  exists: () => false,
  isExecutable: path => path.startsWith('/usr/bin/'),
};

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
let saved: Map<string, NodeJS.SignalsListener[]>;

// The test runner's own signal listeners are set aside, so each test sees only what it adds.
beforeEach(() => {
  saved = new Map(SIGNALS.map(signal => [signal, process.listeners(signal)]));
  for (const signal of SIGNALS) process.removeAllListeners(signal);
});
afterEach(() => {
  for (const signal of SIGNALS) {
    process.removeAllListeners(signal);
    for (const listener of saved.get(signal)!) process.on(signal, listener);
  }
  vi.restoreAllMocks();
});

/** A manager whose initialize() registers signal listeners that only reset, as srt's does. */
function srtLike() {
  const srtListener = vi.fn();
  const manager = {
    initialize: async (_config: SandboxRuntimeConfig) => {
      process.once('SIGINT', srtListener);
      process.once('SIGTERM', srtListener);
    },
    wrapWithSandbox: async (command: string) => command,
    updateConfig: () => {},
    cleanupAfterCommand: () => {},
    reset: vi.fn(async () => {}),
    getSentinelRegistry: () => ({
      registerWithSentinel: (_n: string, s: string) => s,
      clear: () => {},
      size: 0,
    }),
    getMitmCA: () => undefined,
  } satisfies SrtManager;
  return { manager, srtListener };
}

async function started() {
  const { manager, srtListener } = srtLike();
  const runtime = new SrtRuntime(manager, { probe: false, staleSocketDir: false, factSources: linuxHost });
  await runtime.ensure();
  return { runtime, manager, srtListener };
}

describe('SrtRuntime signal handling', () => {
  it("replaces srt's listeners, which would keep the process alive, with one of its own", async () => {
    const { srtListener } = await started();
    for (const signal of SIGNALS) {
      expect(process.listeners(signal)).not.toContain(srtListener);
      expect(process.listenerCount(signal)).toBe(1);
    }
  });

  it("also takes srt's listeners out when they come with a later start", async () => {
    const { manager, srtListener } = srtLike();
    const initialize = manager.initialize;
    let calls = 0;
    manager.initialize = async (config: SandboxRuntimeConfig) => {
      if (++calls === 1) throw new Error('Sandbox dependencies not available: socat not installed');
      await initialize(config);
    };
    const runtime = new SrtRuntime(manager, { probe: false, staleSocketDir: false, factSources: linuxHost });
    await expect(runtime.ensure()).rejects.toMatchObject({ reason: 'missing-binary' });
    await runtime.ensure();
    for (const signal of SIGNALS) {
      expect(process.listeners(signal)).not.toContain(srtListener);
      expect(process.listenerCount(signal)).toBe(1);
    }
  });

  it('stops the sandboxes, resets srt and exits with 128 + the signal when nobody else listens', async () => {
    const { runtime, manager } = await started();
    const order: string[] = [];
    runtime.onShutdown(async () => {
      order.push('sandbox stopped');
    });
    manager.reset.mockImplementation(async () => {
      order.push('srt reset');
    });
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      order.push(`exit ${code}`);
    }) as typeof process.exit);
    process.emit('SIGTERM');
    await vi.waitFor(() => expect(exit).toHaveBeenCalled());
    expect(order).toEqual(['sandbox stopped', 'srt reset', 'exit 143']);
  });

  it("leaves the signal to the application's own listener", async () => {
    const { runtime, manager } = await started();
    const stop = vi.fn();
    runtime.onShutdown(stop);
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => {}) as typeof process.exit);
    const application = vi.fn();
    process.on('SIGINT', application);
    process.emit('SIGINT');
    await new Promise(resolve => setTimeout(resolve, 20));
    expect(application).toHaveBeenCalled();
    expect(stop).not.toHaveBeenCalled();
    expect(manager.reset).not.toHaveBeenCalled();
    expect(exit).not.toHaveBeenCalled();
  });
});
