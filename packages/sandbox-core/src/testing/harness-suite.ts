/**
 * The harness integration suite: drives the real `HarnessAgent` with the real Claude Code and Pi
 * adapters against any sandbox factory, so every sandbox implementation is held to the same
 * behaviour. Claude Code talks to a fake Anthropic API on loopback (see fake-anthropic-server.ts).
 *
 * Call `describeHarnessIntegration(name, { create })` from an `*.integration.test.ts` file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import type { HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';
import { HarnessAgent } from '@ai-sdk/harness/agent';
import type { HarnessAgentAdapter, HarnessAgentSession } from '@ai-sdk/harness/agent';
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { createPi } from '@ai-sdk/harness-pi';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_FAKE_BASH_COMMAND,
  DEFAULT_FAKE_BASH_OUTPUT,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
  type FakeAnthropicServerOptions,
} from './fake-anthropic-server.js';

/**
 * Environment every sandbox of the suite must give its commands by default. Claude Code adapter
 * 1.0.41 cannot pass env per session, so it has to come from the sandbox:
 * - the harness runs Claude Code with bypassPermissions, which the CLI refuses as root unless
 *   IS_SANDBOX=1;
 * - without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 Claude Code also calls api.anthropic.com
 *   directly (feature flags, telemetry), ignoring the base URL.
 */
export const HARNESS_SUITE_SANDBOX_ENV: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  IS_SANDBOX: '1',
};

/** What the suite asks of the sandbox factory. */
export interface HarnessSandboxRequest {
  /** Add these to the environment of every command the sandbox runs. */
  readonly env: Readonly<Record<string, string>>;
  /** Base URL of the fake model API; a fenced sandbox must let Claude Code reach it. */
  readonly modelBaseUrl: string;
  /**
   * The fake server's self-signed certificate (PEM) when it was started with `https`. Claude Code
   * must trust it (NODE_EXTRA_CA_CERTS) if `modelBaseUrl` is its HTTPS URL.
   */
  readonly modelCertificate: string | undefined;
}

export interface HarnessIntegrationOptions {
  /** Creates a fresh sandbox. The suite destroys every sandbox it creates. */
  readonly create: (request: HarnessSandboxRequest) => Promise<HarnessV1NetworkSandboxSession>;
  /** Options for the fake Anthropic server, e.g. `{ https: true }`. */
  readonly fakeServer?: FakeAnthropicServerOptions;
  /** The base URL Claude Code is given. Default: the fake server's plain HTTP URL. */
  readonly modelBaseUrl?: (server: FakeAnthropicServer) => string;
  /** Per-test timeout; a test may include a cold Claude Code bootstrap. Default 5 minutes. */
  readonly timeoutMs?: number;
}

/** The API key the suite gives Claude Code; the fake server must receive exactly this. */
export const HARNESS_SUITE_API_KEY = 'sk-ant-test-harness-suite-0123456789';

const PROMPT = 'Write a note in the working directory and tell me what it says.';

export function describeHarnessIntegration(name: string, options: HarnessIntegrationOptions): void {
  const timeout = options.timeoutMs ?? 300_000;

  describe(name, () => {
    let server: FakeAnthropicServer;
    let request: HarnessSandboxRequest;
    /** Pi keeps host-side config here instead of the user's ~/.pi. */
    let piAgentDir: string;
    const sandboxes: HarnessV1NetworkSandboxSession[] = [];
    const started: Array<{ sandbox: HarnessV1NetworkSandboxSession; session: HarnessAgentSession }> = [];

    const createSandbox = async () => {
      const sandbox = await options.create(request);
      sandboxes.push(sandbox);
      return sandbox;
    };
    /** The first sandbox, shared by the tests so the bootstrap happens once. */
    let sharedSandbox: Promise<HarnessV1NetworkSandboxSession> | undefined;
    const shared = () => (sharedSandbox ??= createSandbox());

    const claudeAgent = () =>
      new HarnessAgent({
        // 1.0.41 is typed against its own copy of @ai-sdk/harness (1.0.40); the runtime contract matches.
        harness: createClaudeCode({
          auth: { anthropic: { apiKey: HARNESS_SUITE_API_KEY, baseUrl: request.modelBaseUrl } },
        }) as unknown as HarnessAgentAdapter,
      });

    const startSession = async (
      agent: HarnessAgent,
      sandbox: HarnessV1NetworkSandboxSession,
      resume?: Parameters<HarnessAgent['createSession']>[0],
    ) => {
      const session = await agent.createSession({ ...resume, sandboxSession: sandbox });
      started.push({ sandbox, session });
      return session;
    };

    beforeAll(async () => {
      server = await startFakeAnthropicServer(options.fakeServer);
      piAgentDir = await mkdtemp(join(tmpdir(), 'harness-suite-pi-'));
      request = {
        env: { ...HARNESS_SUITE_SANDBOX_ENV },
        modelBaseUrl: options.modelBaseUrl?.(server) ?? server.url,
        modelCertificate: server.certificate,
      };
    });

    afterEach(async () => {
      // Sessions a failed test left behind would keep their bridge, and its port, alive.
      // Only a process that still runs the bridge is killed: its pid may have been reused since.
      for (const { sandbox, session } of started.splice(0)) {
        await session.destroy().catch(() => {});
        const pid = await readBridgePid(sandbox, session.sessionId).catch(() => undefined);
        if (pid === undefined) continue;
        await Promise.resolve(
          sandbox.run({
            command: `tr '\\0' ' ' < /proc/${pid}/cmdline 2>/dev/null | grep -q bridge.mjs && kill ${pid}; true`,
          }),
        ).catch(() => {});
      }
    });

    afterAll(async () => {
      await Promise.allSettled(sandboxes.splice(0).map(sandbox => sandbox.destroy()));
      await server?.close();
      if (piAgentDir !== undefined) await rm(piAgentDir, { recursive: true, force: true });
    });

    describe('claude-code 1.0.41', () => {
      it(
        'bootstraps, connects to the bridge, detaches, attaches to the same bridge and stops it',
        async () => {
          const sandbox = await shared();
          const agent = claudeAgent();

          const first = await startSession(agent, sandbox);
          const claude = await sandbox.run({
            command: '/tmp/harness/claude-code/node_modules/.bin/claude --version',
          });
          expect(claude, 'the bootstrap installed the claude CLI').toMatchObject({ exitCode: 0 });
          const bridgePid = await readBridgePid(sandbox, first.sessionId);
          expect(await isAlive(sandbox, bridgePid)).toBe(true);

          const detached = await first.detach();
          expect(detached.data, 'the bridge listens on the first sandbox port').toMatchObject({
            bridge: { port: sandbox.ports[0] },
          });
          expect(await isAlive(sandbox, bridgePid), 'detach leaves the bridge running').toBe(true);

          const attached = await startSession(agent, sandbox, {
            sessionId: first.sessionId,
            resumeFrom: detached,
          });
          expect(attached.isResume).toBe(true);
          expect(
            await readBridgePid(sandbox, first.sessionId),
            'attach reuses the live bridge rather than starting another',
          ).toBe(bridgePid);
          await expectTurn(agent, attached, sandbox, server);

          await attached.stop();
          await waitUntil(
            async () => !(await isAlive(sandbox, bridgePid)),
            'the bridge to exit after stop()',
          );
        },
        timeout,
      );

      it(
        'starts again on the same port after stop(), and destroy() ends the bridge',
        async () => {
          const sandbox = await shared();
          const agent = claudeAgent();
          const stopped = await startSession(agent, sandbox);
          const stoppedPid = await readBridgePid(sandbox, stopped.sessionId);
          await stopped.stop();
          await waitUntil(
            async () => !(await isAlive(sandbox, stoppedPid)),
            'the bridge to exit after stop()',
          );

          // The adapter binds every bridge to the sandbox's first port: one still holding it would make
          // this start fail with EADDRINUSE.
          const next = await startSession(agent, sandbox);
          const nextPid = await readBridgePid(sandbox, next.sessionId);
          await next.destroy();
          await waitUntil(
            async () => !(await isAlive(sandbox, nextPid)),
            'the bridge to exit after destroy()',
          );
        },
        timeout,
      );

      it(
        'runs a turn with generate(): the Bash tool runs in the sandbox and the answer quotes it',
        async () => {
          const sandbox = await shared();
          const agent = claudeAgent();
          const session = await startSession(agent, sandbox);
          await expectTurn(agent, session, sandbox, server);
          await session.destroy();
        },
        timeout,
      );

      it(
        'streams a turn: text deltas, the Bash tool call and its result',
        async () => {
          const sandbox = await shared();
          const agent = claudeAgent();
          const session = await startSession(agent, sandbox);

          const result = await agent.stream({ session, prompt: PROMPT });
          const parts: Array<{ type: string; [key: string]: unknown }> = [];
          for await (const part of result.fullStream) parts.push(part as (typeof parts)[number]);
          const summary = parts.map(p => p.type).join(', ');

          const call = parts.find(p => p.type === 'tool-call');
          expect(call, `a tool-call part among: ${summary}`).toBeDefined();
          expect(String(call!.toolName).toLowerCase()).toBe('bash');
          expect(call!.input).toMatchObject({ command: DEFAULT_FAKE_BASH_COMMAND });
          const toolResult = parts.find(p => p.type === 'tool-result' && p.toolCallId === call!.toolCallId);
          expect(toolResult, `a tool-result part among: ${summary}`).toBeDefined();
          expect(JSON.stringify(toolResult!.output)).toContain(DEFAULT_FAKE_BASH_OUTPUT);
          const streamedText = parts
            .filter(p => p.type === 'text-delta')
            .map(p => String(p.text))
            .join('');
          expect(streamedText).toContain(DEFAULT_FAKE_BASH_OUTPUT);
          expect(await result.text).toContain(DEFAULT_FAKE_BASH_OUTPUT);
          await session.destroy();
        },
        timeout,
      );

      it(
        'runs sessions in two sandboxes at once without collisions',
        async () => {
          const [one, two] = await Promise.all([shared(), createSandbox()]);
          const agent = claudeAgent();
          const sessions = await Promise.all([startSession(agent, one), startSession(agent, two)]);
          await Promise.all([
            expectTurn(agent, sessions[0], one, server),
            expectTurn(agent, sessions[1], two, server),
          ]);
          await Promise.all(sessions.map(session => session.destroy()));
        },
        timeout,
      );
    });

    describe('pi 1.0.123', () => {
      it(
        'starts a session in the sandbox, stops it, and destroys another',
        async () => {
          const sandbox = await shared();
          const agent = new HarnessAgent({
            // 1.0.123 is typed against its own copy of @ai-sdk/harness (1.0.121). Pi runs in this
            // process; only its tools reach the sandbox.
            harness: createPi({ agentDir: piAgentDir }) as unknown as HarnessAgentAdapter,
          });
          const stopped = await startSession(agent, sandbox);
          const workDir = posix.join(sandbox.defaultWorkingDirectory, `pi-${stopped.sessionId}`);
          const check = await sandbox.run({ command: `test -d '${workDir}'` });
          expect(check.exitCode, `the session's work directory ${workDir} exists in the sandbox`).toBe(0);
          const state = await stopped.stop();
          expect(state).toMatchObject({ type: 'resume-session', harnessId: 'pi' });

          const destroyed = await startSession(agent, sandbox);
          await destroyed.destroy();
        },
        timeout,
      );
    });
  });
}

/** Runs the default fake conversation and checks what a user of the sandbox relies on. */
async function expectTurn(
  agent: HarnessAgent,
  session: HarnessAgentSession,
  sandbox: HarnessV1NetworkSandboxSession,
  server: FakeAnthropicServer,
): Promise<void> {
  const before = server.messageRequests().length;
  const result = await agent.generate({ session, prompt: PROMPT });
  const requests = server.messageRequests().slice(before);
  const seen = requests
    .map(r => `${r.method} ${r.url} x-api-key=${String(r.headers['x-api-key'])}`)
    .join('\n');

  expect(result.text, `the answer quotes the command's output; model requests:\n${seen}`).toContain(
    DEFAULT_FAKE_BASH_OUTPUT,
  );
  const notePath = posix.join(
    sandbox.defaultWorkingDirectory,
    `claude-code-${session.sessionId}`,
    'note.txt',
  );
  expect(await sandbox.readTextFile({ path: notePath }), `the Bash tool wrote ${notePath}`).toBe(
    `${DEFAULT_FAKE_BASH_OUTPUT}\n`,
  );
  expect(requests.length).toBeGreaterThanOrEqual(2);
  for (const r of requests) expect(r.headers['x-api-key']).toBe(HARNESS_SUITE_API_KEY);
}

/**
 * The pid of a session's Claude Code bridge, from the `bridge-meta.json` it keeps (adapter 1.0.41
 * layout). The bridge rewrites that file from several unsynchronised writes, so it can hold one
 * flat JSON object followed by the tail of a longer one: only the first object is read.
 */
async function readBridgePid(sandbox: HarnessV1NetworkSandboxSession, sessionId: string): Promise<number> {
  const path = posix.join(
    sandbox.defaultWorkingDirectory,
    '.agent-runs',
    sessionId,
    'bridge',
    'bridge-meta.json',
  );
  const text = await sandbox.readTextFile({ path });
  if (text === null) throw new Error(`The bridge of session ${sessionId} wrote no ${path}.`);
  const meta = JSON.parse(text.slice(0, text.indexOf('}') + 1)) as { pid?: unknown };
  if (typeof meta.pid !== 'number') throw new Error(`${path} names no bridge pid: ${text}`);
  return meta.pid;
}

/**
 * Whether a process runs in the sandbox. `kill -0` rather than `ps`: under srt the command runs in a
 * PID namespace nested below the one /proc shows, so ps would look the pid up in the wrong one. The
 * bridge is reaped by the supervisor that started it, so a zombie does not linger to fool kill -0.
 */
async function isAlive(sandbox: HarnessV1NetworkSandboxSession, pid: number): Promise<boolean> {
  const { stdout } = await sandbox.run({ command: `kill -0 ${pid} 2>/dev/null && echo alive || true` });
  return stdout.trim() === 'alive';
}

async function waitUntil(condition: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise(resolve => setTimeout(resolve, 100));
  }
}
