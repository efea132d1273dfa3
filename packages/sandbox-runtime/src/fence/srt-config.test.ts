import { describe, expect, it } from 'vitest';

import { SandboxOptionsError } from '@internal/sandbox-core';
import { DEFAULT_ALLOWED_DOMAINS } from './default-allowed-domains.js';
import { sandboxLayout } from './layout.js';
import { resolveRuntimeSettings } from './runtime-settings.js';
import {
  buildFenceConfig,
  buildGlobalSrtConfig,
  hostSocketPaths,
  nodeInstallPrefix,
  type HostView,
} from './srt-config.js';

const host: HostView = {
  homedir: '/home/me',
  nodePath: '/usr/bin/node',
  xdgRuntimeDir: '/run/user/1000',
  uid: 1000,
};
const layout = sandboxLayout('box', '/home/me/.ai-sdk-sandbox-runtime');
const dir = '/home/me/.ai-sdk-sandbox-runtime/box';

describe('buildFenceConfig', () => {
  it('hides the home, lets the sandbox write its own directory only, and keeps its settings readable', () => {
    const config = buildFenceConfig({ layout }, host);
    expect(config.customConfig.filesystem).toEqual({
      denyRead: ['/home/me', ...hostSocketPaths(host), `${dir}/sandbox.json`],
      allowRead: [`${dir}/.supervisor`],
      allowWrite: [`${dir}/sandbox`, `${dir}/sandbox/workspace`],
      denyWrite: [],
    });
    expect(config.workspace).toBe(`${dir}/sandbox/workspace`);
    expect(config.allowedDomains).toEqual([...DEFAULT_ALLOWED_DOMAINS]);
    expect(config.reopenedPaths).toEqual([]);
  });

  it('always hides the D-Bus, Docker, containerd and Podman sockets, and adds the denyRead of the options', () => {
    const config = buildFenceConfig({ layout, hideHome: false, denyRead: ['/run/my-service.sock'] }, host);
    expect(config.hiddenSockets).toEqual(
      expect.arrayContaining([
        '/run/dbus',
        '/var/run/dbus',
        '/run/user/1000/bus',
        '/var/run/docker.sock',
        '/run/docker.sock',
        '/run/containerd',
        '/run/podman',
        '/run/user/1000/podman',
      ]),
    );
    expect(config.customConfig.filesystem.denyRead).toEqual([
      '/home/me/.ai-sdk-sandbox-runtime',
      ...config.hiddenSockets,
      `${dir}/sandbox.json`,
      '/run/my-service.sock',
    ]);
  });

  it('hides the other sandboxes of its directory, whatever hides the home', () => {
    const elsewhere = sandboxLayout('box', '/srv/sandboxes');
    const config = buildFenceConfig({ layout: elsewhere }, host);
    expect(config.customConfig.filesystem.denyRead).toEqual([
      '/home/me',
      '/srv/sandboxes',
      ...hostSocketPaths(host),
      '/srv/sandboxes/box/sandbox.json',
    ]);
    // Its own directory stays: the supervisor it runs, and what it writes.
    expect(config.customConfig.filesystem.allowRead).toEqual(['/srv/sandboxes/box/.supervisor']);
    expect(config.customConfig.filesystem.allowWrite).toContain('/srv/sandboxes/box/sandbox');
    // Not a directory holding the node install (nor the root): the sandbox could not run.
    const withNode = buildFenceConfig({ layout: sandboxLayout('box', '/usr') }, host);
    expect(withNode.customConfig.filesystem.denyRead).not.toContain('/usr');
  });

  it('finds the session bus under /run/user/<uid> without XDG_RUNTIME_DIR', () => {
    expect(hostSocketPaths({ xdgRuntimeDir: undefined, uid: 501 })).toContain('/run/user/501/bus');
  });

  it('re-opens the node install under the hidden home that runs the supervisor, and nothing else of it', () => {
    const nvm = { ...host, nodePath: '/home/me/.nvm/versions/node/v24.1.0/bin/node' };
    const config = buildFenceConfig({ layout }, nvm);
    expect(config.reopenedPaths).toEqual(['/home/me/.nvm/versions/node/v24.1.0']);
    expect(config.customConfig.filesystem.allowRead).toContain('/home/me/.nvm/versions/node/v24.1.0');
    // With the home visible there is nothing to re-open.
    expect(buildFenceConfig({ layout, hideHome: false }, nvm).reopenedPaths).toEqual([]);
  });

  it('never re-opens the home itself for a node binary lying in it', () => {
    expect(nodeInstallPrefix('/home/me/bin/node', '/home/me')).toBe('/home/me/bin/node');
    expect(nodeInstallPrefix('/home/me/node', '/home/me')).toBe('/home/me/node');
    expect(nodeInstallPrefix('/home/me/.volta/tools/node/24/bin/node', '/home/me')).toBe(
      '/home/me/.volta/tools/node/24',
    );
    expect(nodeInstallPrefix('/opt/node/node', '/home/me')).toBe('/opt/node');
  });

  it('makes the workspace writable and readOnlyWorkspaces and allowRead readable, ~ meaning the home', () => {
    const config = buildFenceConfig(
      {
        layout,
        workspace: '~/project',
        readOnlyWorkspaces: ['/home/me/docs'],
        allowRead: ['~/.cargo'],
        denyWrite: ['/home/me/project/.git/hooks'],
      },
      host,
    );
    expect(config.workspace).toBe('/home/me/project');
    expect(config.customConfig.filesystem.allowWrite).toEqual([`${dir}/sandbox`, '/home/me/project']);
    expect(config.customConfig.filesystem.allowRead).toEqual([
      '/home/me/.cargo',
      '/home/me/docs',
      `${dir}/.supervisor`,
    ]);
    expect(config.customConfig.filesystem.denyWrite).toEqual(['/home/me/project/.git/hooks']);
  });

  it('refuses a workspace that would make the sandbox directory writable', () => {
    for (const workspace of ['/home/me', '/home/me/.ai-sdk-sandbox-runtime', dir, `${dir}/.supervisor`]) {
      expect(() => buildFenceConfig({ layout, workspace }, host)).toThrow(SandboxOptionsError);
    }
    expect(buildFenceConfig({ layout, workspace: `${dir}/sandbox/other` }, host).workspace).toBe(
      `${dir}/sandbox/other`,
    );
  });

  it('refuses relative paths and bad hosts', () => {
    expect(() => buildFenceConfig({ layout, allowRead: ['relative/dir'] }, host)).toThrow(/relative/);
    expect(() => buildFenceConfig({ layout, allowedDomains: ['*'] }, host)).toThrow(SandboxOptionsError);
  });

  it('passes glob patterns through to srt', () => {
    const config = buildFenceConfig({ layout, hideHome: false, denyRead: ['~/.ssh/id_*'] }, host);
    expect(config.customConfig.filesystem.denyRead).toContain('/home/me/.ssh/id_*');
  });
});

describe('buildGlobalSrtConfig', () => {
  it('has an empty allow list, srt credential injection and TLS termination', () => {
    const config = buildGlobalSrtConfig(resolveRuntimeSettings({}, {}));
    expect(config).toEqual({
      network: { allowedDomains: [], deniedDomains: [], tlsTerminate: {} },
      filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
      credentials: {},
    });
  });

  it('carries the runtime settings', () => {
    const runtime = resolveRuntimeSettings(
      {
        bwrapPath: '/opt/bwrap',
        socatPath: '/opt/socat',
        ripgrepPath: '/opt/rg',
        allowAllUnixSockets: true,
        enableWeakerNestedSandbox: true,
      },
      {},
    );
    expect(buildGlobalSrtConfig(runtime, ['registry.npmjs.org'])).toMatchObject({
      network: { allowedDomains: ['registry.npmjs.org'], allowAllUnixSockets: true },
      bwrapPath: '/opt/bwrap',
      socatPath: '/opt/socat',
      ripgrep: { command: '/opt/rg' },
      enableWeakerNestedSandbox: true,
    });
  });
});
