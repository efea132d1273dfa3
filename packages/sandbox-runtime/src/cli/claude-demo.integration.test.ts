// The demo with a key: a real Claude Code turn (HarnessAgent, adapter 1.0.41, its bridge and CLI
// installed by the template) in a real srt sandbox, against the fake model API over HTTPS. The key
// reaches the API only through srt's proxy, which swaps the sandbox's placeholder for it.
import {
  DEFAULT_FAKE_BASH_COMMAND,
  DEFAULT_FAKE_BASH_OUTPUT,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
} from '@internal/sandbox-core/testing';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { captureIo, withoutModelKeys } from './cli-test-support.js';
import { demoCommand } from './demo-command.js';

const defaultAuthorities = tls.getCACertificates('default');
let server: FakeAnthropicServer;
let directory: string;

beforeAll(async () => {
  server = await startFakeAnthropicServer({ https: true });
  // srt's proxy runs in this process and checks the model server's certificate like any client.
  tls.setDefaultCACertificates([...defaultAuthorities, server.certificate!]);
  directory = await mkdtemp(join(tmpdir(), 'srt-cli-demo-'));
});

afterAll(async () => {
  tls.setDefaultCACertificates(defaultAuthorities);
  await server?.close();
  await rm(directory, { recursive: true, force: true });
});

it('runs a Claude Code turn in a sandbox: template progress, the command the agent ran, its answer', async () => {
  const key = `sk-ant-cli-demo-${Date.now()}`;
  const io = captureIo({
    env: { ...withoutModelKeys(), ANTHROPIC_API_KEY: key, ANTHROPIC_BASE_URL: server.httpsUrl! },
  });
  const workspace = join(directory, 'workspace');
  await mkdir(workspace);
  const code = await demoCommand(['--directory', directory, '--workspace', workspace], io);
  const transcript = `${io.out()}\n--- stderr ---\n${io.err()}`;
  expect(code, transcript).toBe(0);
  expect(io.err()).toContain('› template: preparing template');
  expect(io.out()).toContain(`$ ${DEFAULT_FAKE_BASH_COMMAND}\n    ${DEFAULT_FAKE_BASH_OUTPUT}\n`);
  // The answer quotes what the command printed, which only running it produces.
  expect(io.out()).toContain(`The command printed: ${DEFAULT_FAKE_BASH_OUTPUT}`);

  const requests = server.messageRequests();
  expect(requests.length).toBeGreaterThanOrEqual(2);
  // Claude Code held a placeholder; the proxy put the real key in every request.
  for (const request of requests) expect(request.headers['x-api-key']).toBe(key);
  // The sandbox is gone with the demo (the library may keep caches in dot-directories); the
  // workspace, with what the agent wrote, stays.
  expect((await readdir(directory)).filter(name => !name.startsWith('.'))).toEqual(['workspace']);
  const [sessionDir] = (await readdir(workspace)).filter(name => name.startsWith('claude-code-'));
  expect(await readFile(join(workspace, sessionDir!, 'note.txt'), 'utf8')).toBe(
    `${DEFAULT_FAKE_BASH_OUTPUT}\n`,
  );
});
