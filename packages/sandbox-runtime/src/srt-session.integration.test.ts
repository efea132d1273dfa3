// The srt sandbox's own promises, on real bubblewrap through real srt: network policy, credentials,
// ports, views, lifecycle and templates. The fence rules themselves are tested in fence/.
import { HarnessCapabilityUnsupportedError, type HarnessV1RequestTransformation } from '@ai-sdk/harness';
import { startFakeAnthropicServer, type FakeAnthropicServer } from '@internal/sandbox-core/testing';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSrtNetworkSandboxSession,
  createSrtSandboxProvider,
  resumeSrtNetworkSandboxSession,
  SandboxConflictError,
  SandboxStateError,
  SrtError,
  SrtSandboxNotFoundError,
  type SrtNetworkSandboxSession,
} from './index.js';

const directory = mkdtempSync(join(tmpdir(), 'srt-session-'));
const defaultAuthorities = tls.getCACertificates('default');
let model: FakeAnthropicServer;
let modelHost: string;

beforeAll(async () => {
  model = await startFakeAnthropicServer({ https: true });
  modelHost = new URL(model.httpsUrl!).host;
  // srt's proxy, in this process, checks the upstream certificate like any client would.
  tls.setDefaultCACertificates([...defaultAuthorities, model.certificate!]);
});
afterAll(async () => {
  tls.setDefaultCACertificates(defaultAuthorities);
  await model.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A request from inside to the fake model, through the proxy (NO_PROXY would skip it for loopback). */
const callModel = (header: string) =>
  `curl -sS -m 20 --noproxy '' -o /dev/null -w '%{http_code}' -H "${header}" -d '{}' ${model.httpsUrl}/v1/messages/count_tokens`;

async function withSandbox<T>(
  options: Parameters<typeof createSrtNetworkSandboxSession>[0],
  use: (session: SrtNetworkSandboxSession) => Promise<T>,
): Promise<T> {
  const session = await createSrtNetworkSandboxSession({ directory, ...options });
  try {
    return await use(session);
  } finally {
    await session.destroy();
  }
}

describe('network policy', () => {
  it('reaches only its allowed hosts, and setNetworkPolicy replaces them while it runs', async () => {
    await withSandbox({ allowedDomains: ['registry.npmjs.org'] }, async session => {
      const ping = `curl -sS -m 20 -o /dev/null -w '%{http_code}' https://registry.npmjs.org/-/ping || true`;
      expect((await session.run({ command: ping })).stdout).toBe('200');
      await session.setNetworkPolicy!({ mode: 'deny-all' });
      expect((await session.run({ command: ping })).stdout).not.toBe('200');
      await session.setNetworkPolicy!({ mode: 'custom', allowedHosts: ['registry.npmjs.org'] });
      expect((await session.run({ command: ping })).stdout).toBe('200');
    });
  });

  it.each([
    [{ mode: 'allow-all' }],
    [{ mode: 'custom', allowedHosts: [], allowedCIDRs: ['10.0.0.0/8'] }],
    [{ mode: 'custom', allowedHosts: ['example.com'], deniedCIDRs: ['169.254.169.254/32'] }],
  ] as const)('refuses a policy srt cannot express: %j', async policy => {
    await withSandbox({}, async session => {
      const error = await Promise.resolve(session.setNetworkPolicy!(policy as never)).catch(
        (e: unknown) => e as any,
      );
      expect(HarnessCapabilityUnsupportedError.isInstance(error)).toBe(true);
    });
  });

  it('gives each sandbox of the process its own allow list', async () => {
    const ping = `curl -sS -m 20 -o /dev/null -w '%{http_code}' https://registry.npmjs.org/-/ping || true`;
    await withSandbox({ allowedDomains: ['registry.npmjs.org'] }, async open =>
      withSandbox({ allowedDomains: ['api.anthropic.com'] }, async closed => {
        expect(open.isolatesNetwork).toBe(true);
        const [a, b] = await Promise.all([open.run({ command: ping }), closed.run({ command: ping })]);
        expect(a.stdout).toBe('200');
        expect(b.stdout).not.toBe('200');
      }),
    );
  });
});

describe('credentials', () => {
  it('keeps a real key out of the sandbox while its API receives it', async () => {
    const realKey = `sk-ant-real-${Date.now()}-secret`;
    await withSandbox({ allowedDomains: [] }, async session => {
      const env = { ANTHROPIC_API_KEY: realKey, ANTHROPIC_BASE_URL: model.httpsUrl! };
      const result = await session.run({
        command: [
          // Everything the sandbox can read: its environment, every process's, its files.
          // The needle comes in two halves, so that it is not itself in any environment it searches.
          `grep -rl -- "$NEEDLE_A$NEEDLE_B" /proc/[0-9]*/environ "$HOME" /tmp 2>/dev/null | wc -l`,
          'echo "$ANTHROPIC_API_KEY"',
          callModel('x-api-key: $ANTHROPIC_API_KEY'),
        ].join('; '),
        env: { ...env, NEEDLE_A: realKey.slice(0, 10), NEEDLE_B: realKey.slice(10) },
      });
      const [found, seen, status] = result.stdout.trim().split('\n');
      expect(found).toBe('0');
      expect(seen).toMatch(/^aisdkhc_[A-Za-z0-9_-]{43}$/);
      expect(status).toBe('200');
      expect(model.requests.at(-1)?.headers['x-api-key']).toBe(realKey);
    });
  });

  it('swaps the placeholders of request transformations, idempotently, and withdraws them on release', async () => {
    const placeholder = `aisdkhc_${'p'.repeat(43)}`;
    const realKey = `sk-ant-transformed-${Date.now()}`;
    const rule: HarnessV1RequestTransformation = {
      match: { host: modelHost, headers: [{ key: { exact: 'x-api-key' }, value: { exact: placeholder } }] },
      transform: { headers: { 'x-api-key': realKey } },
    };
    await withSandbox({ allowedDomains: [] }, async session => {
      const view = session.fork({ ports: [] });
      await view.addRequestTransformations!([rule]);
      await view.addRequestTransformations!([rule]); // the harness adds its rules again on resume
      const call = { command: callModel(`x-api-key: ${placeholder}`) };
      expect((await view.run(call)).stdout).toBe('200');
      expect(model.requests.at(-1)?.headers['x-api-key']).toBe(realKey);

      await view.release();
      // The credential's host was reachable only for the credential: released, it is gone too.
      expect((await session.run(call)).stdout).not.toBe('200');
    });
  });

  it('drops with a warning a rule that would add a header srt cannot add', async () => {
    await withSandbox({}, async session => {
      const warnings: string[] = [];
      const original = console.warn;
      console.warn = (message: string) => warnings.push(message);
      try {
        await session.addRequestTransformations!([
          { match: { host: 'chatgpt.com' }, transform: { headers: { 'ChatGPT-Account-ID': 'acct' } } },
        ]);
      } finally {
        console.warn = original;
      }
      expect(warnings.join('\n')).toContain('ChatGPT-Account-ID');
    });
  });

  it('leaves brokering out entirely when brokerCredentials is false', async () => {
    await withSandbox({ brokerCredentials: false }, async session => {
      expect('addRequestTransformations' in session).toBe(false);
      const result = await session.run({
        command: 'echo "$KEY"',
        env: { ANTHROPIC_API_KEY: 'sk-x', KEY: 'kept' },
      });
      expect(result.stdout).toBe('kept\n');
    });
  });
});

describe('ports and views', () => {
  const serve = (port: number, text: string) =>
    `exec node -e "require('http').createServer((q,s)=>s.end('${text}')).listen(${port},'127.0.0.1',()=>console.log('up'))"`;

  it('forwards an exposed port on first use and refuses the others', async () => {
    await withSandbox({ ports: [4200] }, async session => {
      const server = await session.spawn({ command: serve(4200, 'inside') });
      await server.stdout.getReader().read();
      const url = await session.getPortUrl({ port: 4200, protocol: 'ws' });
      expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
      const { url: http } = await session.getPortEndpoint({ port: 4200 });
      expect(await (await fetch(http)).text()).toBe('inside');
      const refused = await Promise.resolve(session.getPortEndpoint({ port: 4201 })).catch(
        (e: unknown) => e as any,
      );
      expect(HarnessCapabilityUnsupportedError.isInstance(refused)).toBe(true);
      await session.setPorts!([4201]);
      await expect(fetch(http)).rejects.toThrow();
    });
  });

  it('runs two views side by side, each with its own ports and processes; release ends one view only', async () => {
    await withSandbox({ ports: [] }, async session => {
      const first = session.fork({ ports: [4300] });
      const second = session.fork({ ports: [4301] });
      const a = await first.spawn({ command: serve(4300, 'first') });
      const b = await second.spawn({ command: serve(4301, 'second') });
      await Promise.all([a.stdout.getReader().read(), b.stdout.getReader().read()]);
      const urlA = (await first.getPortEndpoint({ port: 4300 })).url;
      const urlB = (await second.getPortEndpoint({ port: 4301 })).url;
      expect(await (await fetch(urlA)).text()).toBe('first');
      expect(await (await fetch(urlB)).text()).toBe('second');
      expect(
        (await Promise.resolve(first.getPortEndpoint({ port: 4301 })).catch((e: unknown) => e as any)).name,
      ).toContain('Unsupported');

      await first.release();
      expect((await a.wait()).exitCode).not.toBe(0);
      await expect(first.run({ command: 'true' })).rejects.toThrow(/released/);
      expect(await (await fetch(urlB)).text()).toBe('second');
      expect((await session.run({ command: 'echo alive' })).stdout).toBe('alive\n');
    });
  });
});

describe('lifecycle', () => {
  it('keeps files across stop and resume, and resumes with its rules', async () => {
    const sandboxId = `resume-${Date.now()}`;
    const session = await createSrtNetworkSandboxSession({
      directory,
      sandboxId,
      ports: [4400],
      allowedDomains: [],
    });
    await session.writeTextFile({ path: 'kept.txt', content: 'across runs' });
    await session.run({ command: 'sleep 1000 >/dev/null 2>&1 &' });
    await session.stop();
    await session.stop();
    await expect(createSrtNetworkSandboxSession({ directory, sandboxId })).rejects.toBeInstanceOf(
      SandboxConflictError,
    );

    const resumed = await resumeSrtNetworkSandboxSession({ directory, sandboxId });
    expect(await resumed.readTextFile({ path: 'kept.txt' })).toBe('across runs');
    expect(resumed.ports).toEqual([4400]);
    expect((await resumed.run({ command: 'pgrep -c sleep || true' })).stdout.trim()).toBe('0');
    await resumed.destroy();
    await resumed.destroy();
    expect(existsSync(join(directory, sandboxId))).toBe(false);
  });

  it('never removes a workspace it was given', async () => {
    const workspace = mkdtempSync(join(directory, 'given-workspace-'));
    await withSandbox({ workspace }, async session => {
      await session.writeTextFile({ path: 'mine.txt', content: 'yours' });
    });
    expect(await readFile(join(workspace, 'mine.txt'), 'utf8')).toBe('yours');
    // Nor leaves anything in it: the placeholders that protect settings files go with the sandbox.
    expect(readdirSync(workspace)).toEqual(['mine.txt']);
  });

  it('says which sandbox it could not find, and which record is damaged', async () => {
    const missing = await resumeSrtNetworkSandboxSession({ directory, sandboxId: 'not-there' }).catch(e => e);
    expect(missing).toBeInstanceOf(SrtSandboxNotFoundError);
    expect(missing.sandboxId).toBe('not-there');

    const sandboxId = `damaged-${Date.now()}`;
    const session = await createSrtNetworkSandboxSession({ directory, sandboxId });
    await session.stop();
    await writeFile(join(directory, sandboxId, 'sandbox.json'), JSON.stringify({ version: 1, kind: 'srt' }));
    const damaged = await resumeSrtNetworkSandboxSession({ directory, sandboxId }).catch(e => e);
    expect(damaged).toBeInstanceOf(SandboxStateError);
    expect(damaged.message).toContain('sandbox.json');
    await session.destroy();
  });

  it('runs setup commands then the template, reporting progress, and removes a sandbox whose setup fails', async () => {
    const events: string[] = [];
    const prepared = await createSrtNetworkSandboxSession({
      directory,
      setup: ['echo from-setup > setup.txt'],
      template: {
        identity: 'test-template',
        prepare: async ({ session }) => {
          await session.run({ command: 'cat setup.txt > template.txt' });
        },
      },
      onProgress: event => events.push(`${event.phase}: ${event.message}`),
    });
    expect(await prepared.readTextFile({ path: 'template.txt' })).toBe('from-setup\n');
    expect(events).toEqual(
      expect.arrayContaining([
        'setup: echo from-setup > setup.txt',
        'template: cat setup.txt > template.txt',
        expect.stringMatching(/^ready: /),
      ]),
    );
    await prepared.destroy();

    const sandboxId = `failing-${Date.now()}`;
    const error = await createSrtNetworkSandboxSession({ directory, sandboxId, setup: ['exit 4'] }).catch(
      e => e,
    );
    expect(error).toBeInstanceOf(SrtError);
    expect(error.reason).toBe('setup-failed');
    expect(existsSync(join(directory, sandboxId))).toBe(false);
  });

  it('prepares a template once per identity and gives later sandboxes their own copy of it', async () => {
    const templateDirectory = mkdtempSync(join(directory, 'templates-'));
    let prepared = 0;
    const template = (identity: string) => ({
      identity,
      prepare: async ({ session }: { session: { run(o: { command: string }): PromiseLike<unknown> } }) => {
        prepared++;
        await session.run({
          command: `mkdir -p /tmp/tool ~/.tool && echo ${identity} > /tmp/tool/version && echo home > ~/.tool/state`,
        });
      },
    });
    const make = (identity: string) =>
      createSrtNetworkSandboxSession({ directory: templateDirectory, template: template(identity) });
    const read = (session: SrtNetworkSandboxSession) =>
      session.run({ command: 'cat /tmp/tool/version ~/.tool/state' }).then(result => result.stdout);

    const first = await make('tool-v1');
    const second = await make('tool-v1');
    expect(prepared).toBe(1);
    expect(await read(second)).toBe('tool-v1\nhome\n');
    // One sandbox changing its copy changes neither the others' nor the cache.
    await second.run({ command: 'echo changed > /tmp/tool/version' });
    expect(await read(first)).toBe('tool-v1\nhome\n');
    const third = await make('tool-v1');
    expect(await read(third)).toBe('tool-v1\nhome\n');
    // Another identity prepares afresh.
    const fourth = await make('tool-v2');
    expect(prepared).toBe(2);
    expect(await read(fourth)).toBe('tool-v2\nhome\n');
    await Promise.all([first, second, third, fourth].map(session => session.destroy()));
  });

  it('refuses a second sandbox asking for other process-wide srt settings, naming the setting', async () => {
    await withSandbox({}, async () => {
      const error = await createSrtNetworkSandboxSession({
        directory,
        runtime: { enableWeakerNestedSandbox: true },
      }).catch(e => e);
      expect(error).toBeInstanceOf(SrtError);
      expect(error.reason).toBe('runtime-conflict');
      expect(error.message).toContain('enableWeakerNestedSandbox');
    });
  });

  it('works as a provider: named after the session, bootstrapped once, resumed by id', async () => {
    const provider = createSrtSandboxProvider({ directory });
    const sessionId = `provided-${Date.now()}`;
    let firstCreates = 0;
    const session = await provider.createSession({
      sessionId,
      onFirstCreate: async basic => {
        firstCreates++;
        await basic.writeTextFile({ path: 'bootstrapped', content: 'yes' });
      },
    });
    expect(session.id).toBe(sessionId);
    await session.stop();
    const resumed = await provider.resumeSession!({ sessionId });
    expect(await resumed.readTextFile({ path: 'bootstrapped' })).toBe('yes');
    expect(firstCreates).toBe(1);
    await resumed.destroy();
  });
});
