import { describe, expect, it } from 'vitest';

import { buildFenceEnv } from './fence-env.js';

describe('buildFenceEnv', () => {
  const hostEnv = {
    PATH: '/usr/bin:/bin',
    LANG: 'C.UTF-8',
    USER: 'me',
    HOME: '/home/me',
    OPENAI_API_KEY: 'sk-x',
    TMPDIR: '/var/t',
  };

  it('takes only PATH, LANG and USER from the host', () => {
    const env = buildFenceEnv({ hostEnv, home: '/s/home', tmpdir: '/tmp' });
    expect(env).toEqual({
      PATH: '/s/home/.local/bin:/usr/bin:/bin',
      LANG: 'C.UTF-8',
      USER: 'me',
      HOME: '/s/home',
      TMPDIR: '/tmp',
      NPM_CONFIG_PREFIX: '/s/home/.local',
      SHELL: '/bin/bash',
      NODE_USE_ENV_PROXY: '1',
      IS_SANDBOX: '1',
      COREPACK_DEFAULT_TO_LATEST: '0',
    });
  });

  it("adds the caller's variables last", () => {
    const env = buildFenceEnv({
      hostEnv,
      home: '/s/home',
      tmpdir: '/tmp',
      extra: { CI: '1', SHELL: '/bin/sh' },
    });
    expect(env).toMatchObject({ CI: '1', SHELL: '/bin/sh' });
  });

  it('has a PATH even when the host has none', () => {
    expect(buildFenceEnv({ hostEnv: {}, home: '/h', tmpdir: '/tmp' }).PATH).toBe(
      '/h/.local/bin:/usr/local/bin:/usr/bin:/bin',
    );
  });
});
