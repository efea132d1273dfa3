// Real Claude Code turns in the srt sandbox beyond the shared harness suite: two conversations in one
// sandbox through fork(), and a conversation continued from another process after the sandbox was
// stopped and resumed by id. Only the model is fake.
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { HarnessAgent, type HarnessAgentAdapter } from '@ai-sdk/harness/agent';
import {
  DEFAULT_FAKE_BASH_OUTPUT,
  HARNESS_SUITE_SANDBOX_ENV,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
} from '@internal/sandbox-core/testing';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSrtNetworkSandboxSession,
  DEFAULT_ALLOWED_DOMAINS,
  sandboxTemplateFor,
  type SandboxTemplate,
} from './index.js';

const API_KEY = 'sk-ant-real-turns-0123456789';
const directory = mkdtempSync(join(tmpdir(), 'srt-real-turns-'));
const defaultAuthorities = tls.getCACertificates('default');
let model: FakeAnthropicServer;
let template: SandboxTemplate;

const claudeCode = () =>
  createClaudeCode({
    auth: { anthropic: { apiKey: API_KEY, baseUrl: model.httpsUrl! } },
  }) as unknown as HarnessAgentAdapter;

const sandboxOptions = (extra: Parameters<typeof createSrtNetworkSandboxSession>[0] = {}) => ({
  directory,
  template,
  allowedDomains: [...DEFAULT_ALLOWED_DOMAINS, new URL(model.httpsUrl!).host],
  // Test-only: srt's NO_PROXY names loopback, where the fake model listens (see harness.integration).
  env: { ...HARNESS_SUITE_SANDBOX_ENV, NO_PROXY: '', no_proxy: '' },
  ...extra,
});

beforeAll(async () => {
  model = await startFakeAnthropicServer({ https: true });
  tls.setDefaultCACertificates([...defaultAuthorities, model.certificate!]);
  template = await sandboxTemplateFor(claudeCode());
});
afterAll(async () => {
  tls.setDefaultCACertificates(defaultAuthorities);
  await model.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('real Claude Code turns in the srt sandbox', () => {
  it('holds two conversations at once in one sandbox, each through its own fork, then releases them', async () => {
    const sandbox = await createSrtNetworkSandboxSession(sandboxOptions());
    try {
      const views = [sandbox.fork({ ports: [4500] }), sandbox.fork({ ports: [4501] })];
      const agent = new HarnessAgent({ harness: claudeCode() });
      const sessions = await Promise.all(views.map(view => agent.createSession({ sandboxSession: view })));
      const results = await Promise.all(
        sessions.map(session =>
          agent.generate({ session, prompt: 'Write a note and tell me what it says.' }),
        ),
      );
      for (const result of results) expect(result.text).toContain(DEFAULT_FAKE_BASH_OUTPUT);
      await Promise.all(sessions.map(session => session.destroy()));
      await Promise.all(views.map(view => view.release()));
      // The sandbox outlives its views.
      expect((await sandbox.run({ command: 'echo still-running' })).stdout).toBe('still-running\n');
    } finally {
      await sandbox.destroy();
    }
  });

  it('continues a conversation from a new process after the sandbox was stopped and resumed by id', async () => {
    const sandboxId = `continued-${Date.now()}`;
    const sandbox = await createSrtNetworkSandboxSession(sandboxOptions({ sandboxId, ports: [4600] }));
    const agent = new HarnessAgent({ harness: claudeCode() });
    const session = await agent.createSession({ sandboxSession: sandbox });
    const first = await agent.generate({
      session,
      prompt: 'Remember the word periwinkle, then write a note.',
    });
    expect(first.text).toContain(DEFAULT_FAKE_BASH_OUTPUT);
    const state = await session.stop();
    await sandbox.stop();

    const stateFile = join(directory, 'state.json');
    writeFileSync(stateFile, JSON.stringify({ sessionId: session.sessionId, state }));
    const certificateFile = join(directory, 'model.pem');
    writeFileSync(certificateFile, model.certificate!);
    const before = model.messageRequests().length;
    const { stdout } = await promisify(execFile)(process.execPath, [continueScript()], {
      env: {
        ...process.env,
        DIRECTORY: directory,
        SANDBOX_ID: sandboxId,
        STATE_FILE: stateFile,
        MODEL_URL: model.httpsUrl!,
        MODEL_CERTIFICATE: certificateFile,
        API_KEY,
      },
      timeout: 240_000,
    });
    const outcome = JSON.parse(stdout.trim().split('\n').at(-1)!) as { text: string; isResume: boolean };
    expect(outcome.isResume).toBe(true);
    expect(outcome.text).toContain(DEFAULT_FAKE_BASH_OUTPUT);
    // The model saw the first conversation again: Claude Code's history lived on in the sandbox's home.
    const continued = model.messageRequests().slice(before);
    expect(continued.length).toBeGreaterThan(0);
    expect(continued.some(request => request.body.includes('periwinkle'))).toBe(true);
    const resumed = await import('./index.js').then(m =>
      m.resumeSrtNetworkSandboxSession({ directory, sandboxId }),
    );
    await resumed.destroy();
  });
});

/** The second process: resumes the sandbox and the harness session, and runs one more turn. */
function continueScript(): string {
  const built = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  if (!existsSync(built))
    execFileSync('pnpm', ['exec', 'tsup', '--silent'], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
  // Beside the package's dependencies, so that the script resolves them, and out of what is published.
  const cache = fileURLToPath(new URL('../node_modules/.cache/', import.meta.url));
  mkdirSync(cache, { recursive: true });
  const script = join(cache, 'continue-conversation.mjs');
  writeFileSync(
    script,
    `
import tls from 'node:tls';
import { readFileSync } from 'node:fs';
import { HarnessAgent } from '@ai-sdk/harness/agent';
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { resumeSrtNetworkSandboxSession } from ${JSON.stringify(built)};
const env = process.env;
tls.setDefaultCACertificates([...tls.getCACertificates('default'), readFileSync(env.MODEL_CERTIFICATE, 'utf8')]);
const { sessionId, state } = JSON.parse(readFileSync(env.STATE_FILE, 'utf8'));
const sandbox = await resumeSrtNetworkSandboxSession({ directory: env.DIRECTORY, sandboxId: env.SANDBOX_ID });
const agent = new HarnessAgent({ harness: createClaudeCode({ auth: { anthropic: { apiKey: env.API_KEY, baseUrl: env.MODEL_URL } } }) });
const session = await agent.createSession({ sessionId, resumeFrom: state, sandboxSession: sandbox });
const result = await agent.generate({ session, prompt: 'What word did I ask you to remember?' });
await session.stop();
await sandbox.stop();
console.log(JSON.stringify({ text: result.text, isResume: session.isResume }));
process.exit(0);
`,
  );
  return script;
}
