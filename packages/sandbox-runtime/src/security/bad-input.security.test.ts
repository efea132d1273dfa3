// Bad input from the caller: each is refused with a clear typed error before anything is created,
// never a sandbox with rules the caller did not mean, nor an obscure failure deep inside.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { HarnessCapabilityUnsupportedError, type HarnessV1NetworkPolicy } from '@ai-sdk/harness';
import { afterAll, beforeAll, expect, vi } from 'vitest';

import { SandboxOptionsError } from '@internal/sandbox-core';
import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { createSrtNetworkSandboxSession, resumeSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import type { SrtSandboxOptions } from '../srt-options.js';
import { securityCategory } from './record.js';
import { brief, SandboxPool, scratchDirectory } from './support.js';

const { attack } = securityCategory('bad-input');

let scratch: Awaited<ReturnType<typeof scratchDirectory>>;
let pool: SandboxPool;
let session: SrtNetworkSandboxSession;

beforeAll(async () => {
  scratch = await scratchDirectory('input');
  pool = new SandboxPool(join(scratch.path, 'sandboxes'));
  session = await pool.create({ ports: [4000] });
});
afterAll(async () => {
  await pool.destroyAll();
  await scratch.remove();
});

/** Awaits `attempt`, which must fail with an instance of `type`; returns its message. */
async function refusedWith(
  type: abstract new (...args: never[]) => Error,
  attempt: () => unknown,
  label = attempt.toString(),
): Promise<string> {
  let error: unknown;
  try {
    await attempt();
  } catch (caught) {
    error = caught;
  }
  expect(error, `no ${type.name} for ${brief(label, 160)} (got ${String(error)})`).toBeInstanceOf(type);
  const message = (error as Error).message;
  expect(message.length).toBeGreaterThan(10);
  return message;
}

/** Every attempt refused with `type`; nothing created in the sandboxes' directory. */
async function allRefused(
  type: abstract new (...args: never[]) => Error,
  attempts: Array<() => unknown>,
): Promise<string> {
  const before = existsSync(pool.directory) ? (await readdir(pool.directory)).length : 0;
  const messages: string[] = [];
  for (const attempt of attempts) messages.push(await refusedWith(type, attempt));
  expect(existsSync(pool.directory) ? (await readdir(pool.directory)).length : 0).toBe(before);
  return `${attempts.length}/${attempts.length} ${type.name}, e.g. "${brief(messages[0]!, 110)}"`;
}

const create = (options: unknown) => () =>
  createSrtNetworkSandboxSession({ directory: pool.directory, ...(options as SrtSandboxOptions) });

attack(
  'invalid sandboxId: empty, "..", "/", ">128 chars", control characters, a path',
  'SandboxOptionsError',
  async () => {
    const ids = [
      '',
      '..',
      '.',
      '/',
      '../escape',
      'a/b',
      'x'.repeat(129),
      'bad\nid',
      'bad\0id',
      ' lead',
      'a\u202eb',
      42,
    ];
    const attempts = ids.flatMap(sandboxId => [
      create({ sandboxId }),
      () => resumeSrtNetworkSandboxSession({ sandboxId: sandboxId as string, directory: pool.directory }),
    ]);
    return allRefused(SandboxOptionsError, attempts);
  },
);

attack('invalid ports: 0, 65536, 3.5, -1, "4000", duplicates', 'SandboxOptionsError', async () => {
  const lists: unknown[] = [[0], [65536], [3.5], [-1], ['4000'], [4000, 4000], 4000, [Number.NaN]];
  return allRefused(SandboxOptionsError, [
    ...lists.map(ports => create({ ports })),
    ...lists.map(ports => () => session.setPorts!(ports as number[])),
    ...lists.map(ports => () => session.fork({ ports: ports as number[] })),
  ]);
});

attack(
  'ask for the endpoint of a port that is not exposed',
  'HarnessCapabilityUnsupportedError',
  async () => {
    return allRefused(HarnessCapabilityUnsupportedError, [
      () => session.getPortEndpoint({ port: 4001 }),
      () => session.getPortEndpoint({ port: 22 }),
      () => session.fork({ ports: [] }).getPortEndpoint({ port: 4000 }),
    ]);
  },
);

attack('domain patterns srt would reject', 'SandboxOptionsError', async () => {
  const patterns = [
    '*',
    '*.com',
    'http://example.com',
    'example.com/path',
    'exa mple.com',
    '',
    '*.*.example.com',
    'example.com:99999',
    'example.com:0',
    'user@example.com',
    '-bad.example.com',
    'a..b.com',
    'example.com\n',
  ];
  return allRefused(SandboxOptionsError, [
    ...patterns.map(pattern => create({ allowedDomains: [pattern] })),
    ...patterns.map(pattern => () => session.setNetworkPolicy!({ mode: 'custom', allowedHosts: [pattern] })),
  ]);
});

attack(
  'network policies srt cannot express: allow-all, ranges, deniedCIDRs',
  'HarnessCapabilityUnsupportedError',
  async () => {
    const policies = [
      { mode: 'allow-all' },
      { mode: 'custom', allowedCIDRs: ['10.0.0.0/8'] },
      { mode: 'custom', allowedCIDRs: ['::/0'] },
      { mode: 'custom', allowedHosts: ['example.com'], deniedCIDRs: ['169.254.169.254/32'] },
      { mode: 'custom', allowedCIDRs: ['not-an-address'] },
      { mode: 'something-else' },
    ] as unknown as HarnessV1NetworkPolicy[];
    return allRefused(
      HarnessCapabilityUnsupportedError,
      policies.map(policy => () => session.setNetworkPolicy!(policy)),
    );
  },
);

attack(
  'request transformations with matchers srt cannot honour',
  'dropped with a warning, nothing registered',
  async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await session.addRequestTransformations!([
        // Adds a header the request does not carry (srt only swaps a placeholder).
        { match: { host: 'api.example.com' }, transform: { headers: { 'x-api-key': 'sk-real-1' } } },
        // Matches the header by regex, not by an exact placeholder.
        {
          match: {
            host: 'api.example.com',
            headers: [{ key: { exact: 'authorization' }, value: { regex: 'Bearer .*' } }],
          },
          transform: { headers: { authorization: 'Bearer sk-real-2' } },
        },
        // No host at all.
        { match: {}, transform: { headers: { 'x-api-key': 'sk-real-3' } } },
      ] as never);
      const warnings = warn.mock.calls.map(call => String(call[0]));
      expect(warnings.length).toBeGreaterThanOrEqual(3);
      // Nothing of it reaches the sandbox's allow list either.
      const result = await session.run({
        command: "curl -sS -m 8 -o /dev/null -w '%{http_code}' https://api.example.com/; echo",
      });
      expect(result.stdout).not.toMatch(/^2/);
      return `${warnings.length} warnings, e.g. "${brief(warnings[0]!, 100)}"`;
    } finally {
      warn.mockRestore();
    }
  },
);

attack('paths and commands with NUL bytes', 'SandboxOptionsError', async () => {
  return allRefused(SandboxOptionsError, [
    () => session.readFile({ path: 'a\0b' }),
    () => session.readTextFile({ path: '/etc/passwd\0.txt' }),
    () => session.writeTextFile({ path: 'a\0b', content: 'x' }),
    () => session.run({ command: 'echo a\0b' }),
    () => session.run({ command: 'true', workingDirectory: '/tmp\0/x' }),
    () => session.run({ command: 'true', env: { A: 'a\0b' } }),
    create({ denyRead: ['/etc\0/shadow'] }),
    create({ allowRead: ['/root\0'] }),
    create({ workspace: '/tmp\0x' }),
  ]);
});

attack('options of the wrong type', 'SandboxOptionsError naming the option', async () => {
  const wrong: unknown[] = [
    { ports: '4000' },
    { env: { A: 1 } },
    { env: { 'BAD-NAME': 'x' } },
    { hideHome: 'yes' },
    { workspace: 'relative/path' },
    { allowRead: '/etc' },
    { denyRead: [42] },
    { allowedDomains: 'example.com' },
    { runtime: { allowAllUnixSockets: 'true' } },
    { runtime: { unknownSetting: true } },
    { setup: 'npm install' },
    { brokerCredentials: 1 },
    { credentialVariables: { KEY: 'api.example.com' } },
    { unknownOption: true },
    'not an object',
  ];
  const message = await allRefused(
    SandboxOptionsError,
    wrong.map(options => () => createSrtNetworkSandboxSession(options as SrtSandboxOptions)),
  );
  const named = await refusedWith(SandboxOptionsError, create({ hideHome: 'yes' }));
  expect(named).toContain('hideHome');
  return message;
});

attack('call arguments of the wrong type (run, files)', 'SandboxOptionsError', async () => {
  return allRefused(SandboxOptionsError, [
    () => session.run({ command: 42 as never }),
    () => session.run({ command: 'true', env: 'A=1' as never }),
    () => session.run({ command: 'true', env: { A: 1 } as never }),
    () => session.readFile({ path: 42 as never }),
    () => session.readFile({ path: '' }),
    () => session.writeTextFile({ path: 'x', content: 42 as never }),
    async () => {
      await session.writeTextFile({ path: 'x.txt', content: 'x' });
      return session.readTextFile({ path: 'x.txt', encoding: 'no-such-encoding' });
    },
  ]);
});
