import { describe, expect, it } from 'vitest';

import { differingSetting, resolveRuntimeSettings } from './runtime-settings.js';

describe('resolveRuntimeSettings', () => {
  it('reads SRT_SOCAT, SRT_RIPGREP and SRT_ALLOW_ALL_UNIX_SOCKETS=1 when the options say nothing', () => {
    const env = { SRT_SOCAT: '/opt/socat', SRT_RIPGREP: '/opt/rg', SRT_ALLOW_ALL_UNIX_SOCKETS: '1' };
    expect(resolveRuntimeSettings({}, env)).toEqual({
      bwrapPath: undefined,
      socatPath: '/opt/socat',
      ripgrepPath: '/opt/rg',
      allowAllUnixSockets: true,
      enableWeakerNestedSandbox: false,
    });
  });

  it('lets explicit options win over the environment', () => {
    const env = { SRT_SOCAT: '/opt/socat', SRT_ALLOW_ALL_UNIX_SOCKETS: '1' };
    expect(
      resolveRuntimeSettings({ socatPath: '/usr/bin/socat', allowAllUnixSockets: false }, env),
    ).toMatchObject({
      socatPath: '/usr/bin/socat',
      allowAllUnixSockets: false,
    });
  });

  it('only takes 1 as yes for SRT_ALLOW_ALL_UNIX_SOCKETS', () => {
    expect(resolveRuntimeSettings({}, { SRT_ALLOW_ALL_UNIX_SOCKETS: 'true' }).allowAllUnixSockets).toBe(
      false,
    );
  });
});

describe('differingSetting', () => {
  it('names the first setting that differs', () => {
    const a = resolveRuntimeSettings({}, {});
    expect(differingSetting(a, resolveRuntimeSettings({}, {}))).toBeUndefined();
    expect(differingSetting(a, resolveRuntimeSettings({ enableWeakerNestedSandbox: true }, {}))).toBe(
      'enableWeakerNestedSandbox',
    );
    expect(differingSetting(a, resolveRuntimeSettings({ bwrapPath: '/opt/bwrap' }, {}))).toBe('bwrapPath');
  });
});
