/**
 * The demo with a model key: a real Claude Code turn in a fresh sandbox, as the README's example
 * runs it. The harness packages are the application's, not this package's: they are imported
 * when the demo runs, so the other commands work without them.
 */
import type { Experimental_SandboxSession } from '@ai-sdk/provider-utils';
import type { HarnessAgent, HarnessAgentAdapter } from '@ai-sdk/harness/agent';
import type { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_ALLOWED_DOMAINS } from '../fence/default-allowed-domains.js';
import type { SrtRuntimeSettings } from '../fence/runtime-settings.js';
import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { createSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import { sandboxTemplateFor } from '../template/sandbox-template.js';
import { line, type CliIo } from './cli-io.js';
import { progressPrinter } from './progress.js';

export const DEMO_PROMPT = 'Write a script that prints the first ten primes, then run it.';

export interface ClaudeDemoOptions {
  readonly directory?: string;
  readonly runtime?: SrtRuntimeSettings;
  readonly prompt?: string;
  /** The directory the agent works on. Default: a fresh one in the temporary directory, kept after. */
  readonly workspace?: string;
}

/** Whether `env` holds a key the Claude Code demo can use. */
export function hasModelKey(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.ANTHROPIC_API_KEY || env.CLAUDE_CODE_OAUTH_TOKEN);
}

export async function runClaudeDemo(io: CliIo, options: ClaudeDemoOptions = {}): Promise<number> {
  const modules = await loadHarness(io);
  if (!modules) return 1;
  const { HarnessAgent, createClaudeCode } = modules;
  const apiKey = io.env.ANTHROPIC_API_KEY || undefined;
  const oauthToken = io.env.CLAUDE_CODE_OAUTH_TOKEN || undefined;
  const baseUrl = io.env.ANTHROPIC_BASE_URL || undefined;
  const baseHost = baseUrl ? new URL(baseUrl) : undefined;
  // Explicit auth, so the adapter does not also run an apiKeyHelper from the user's ~/.claude.
  // 1.0.41 is typed against its own copy of @ai-sdk/harness; the runtime contract is the same.
  const claudeCode = createClaudeCode({
    auth: { anthropic: { apiKey, baseUrl } },
  }) as unknown as HarnessAgentAdapter;

  const workspace = options.workspace ?? (await mkdtemp(join(tmpdir(), 'ai-sdk-sandbox-runtime-demo-')));
  line(io.stdout, `Claude Code in a sandbox fenced by srt, working in ${workspace}.`);
  line(
    io.stdout,
    `Key: ${apiKey ? 'ANTHROPIC_API_KEY' : 'CLAUDE_CODE_OAUTH_TOKEN'}, kept out of the sandbox (a placeholder goes in).`,
  );
  let sandboxSession: SrtNetworkSandboxSession | undefined;
  let session: { destroy(): PromiseLike<unknown> } | undefined;
  try {
    sandboxSession = await createSrtNetworkSandboxSession({
      directory: options.directory,
      workspace,
      ports: [4000],
      template: await sandboxTemplateFor(claudeCode),
      allowedDomains: [...DEFAULT_ALLOWED_DOMAINS, ...(baseHost ? [baseHost.host] : [])],
      env: {
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // srt's NO_PROXY names the loopback, which would send a model server on this host's loopback
        // around the proxy and into the sandbox's own empty network.
        ...(baseHost && isLoopback(baseHost.hostname) ? { NO_PROXY: '', no_proxy: '' } : {}),
      },
      runtime: options.runtime,
      onProgress: progressPrinter(io, { always: true }),
      abortSignal: io.signal,
    });
    const agent = new HarnessAgent({ id: 'demo', harness: claudeCode });
    line(io.stderr, "› starting Claude Code's bridge");
    // The adapter passes no OAuth token to the bridge; every command gets it instead, as a variable
    // the sandbox masks like any credential.
    const harnessSandbox =
      oauthToken && !apiKey
        ? withEnv(sandboxSession, { CLAUDE_CODE_OAUTH_TOKEN: oauthToken })
        : sandboxSession;
    const agentSession = await agent.createSession({ sandboxSession: harnessSandbox });
    session = agentSession;
    const prompt = options.prompt ?? DEMO_PROMPT;
    line(io.stdout);
    line(io.stdout, `Prompt: ${prompt}`);
    line(io.stdout);
    const result = await agent.stream({ session: agentSession, prompt, abortSignal: io.signal });
    let failed = false;
    // Text streams as it comes; each command the agent runs stands on lines of its own.
    let last: 'none' | 'text' | 'tool' = 'none';
    for await (const part of result.fullStream as AsyncIterable<StreamPart>) {
      if (part.type === 'text-delta') {
        if (last === 'tool') line(io.stdout);
        io.stdout.write(String(part.text ?? ''));
        last = 'text';
      } else if (part.type === 'tool-call') {
        if (last === 'text') io.stdout.write('\n\n');
        line(io.stdout, describeCall(part));
        last = 'tool';
      } else if (part.type === 'tool-result') {
        for (const text of preview(part.output)) line(io.stdout, `    ${text}`);
      } else if (part.type === 'error') {
        failed = true;
        line(io.stderr, `\nThe turn failed: ${describeError(part.error)}`);
      }
    }
    line(io.stdout, last === 'text' ? '\n' : '');
    line(io.stdout, `The agent's files are in ${workspace}.`);
    return failed ? 1 : 0;
  } finally {
    await Promise.resolve(session?.destroy()).catch(() => undefined);
    await Promise.resolve(sandboxSession?.destroy()).catch(() => undefined);
  }
}

type HarnessModules = {
  HarnessAgent: typeof HarnessAgent;
  createClaudeCode: typeof createClaudeCode;
};

async function loadHarness(io: CliIo): Promise<HarnessModules | undefined> {
  try {
    const [{ HarnessAgent }, { createClaudeCode }] = await Promise.all([
      import('@ai-sdk/harness/agent'),
      import('@ai-sdk/harness-claude-code'),
    ]);
    return { HarnessAgent, createClaudeCode };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    line(
      io.stderr,
      'The demo drives Claude Code with @ai-sdk/harness and @ai-sdk/harness-claude-code, which are not installed: ' +
        '`pnpm add @ai-sdk/harness @ai-sdk/harness-claude-code` next to ai-sdk-sandbox-runtime.',
    );
    return undefined;
  }
}

interface StreamPart {
  readonly type: string;
  readonly text?: unknown;
  readonly toolName?: unknown;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly error?: unknown;
}

function describeCall(part: StreamPart): string {
  const input = part.input as { command?: unknown } | undefined;
  if (typeof input?.command === 'string') return `$ ${input.command}`;
  return `[${String(part.toolName)}] ${JSON.stringify(part.input ?? {}).slice(0, 200)}`;
}

/** The first lines of what a tool returned: a command's output, or the value as JSON. */
function preview(output: unknown): string[] {
  const result = output as { exitCode?: unknown; stdout?: unknown; stderr?: unknown } | null;
  let text: string;
  if (typeof output === 'string') text = output;
  else if (result && (typeof result.stdout === 'string' || typeof result.stderr === 'string')) {
    text = [result.stdout, result.stderr].filter(part => typeof part === 'string' && part !== '').join('\n');
    if (typeof result.exitCode === 'number' && result.exitCode !== 0)
      text += `\n(exit code ${result.exitCode})`;
  } else text = JSON.stringify(output ?? '');
  const lines = text.trimEnd().split('\n');
  return lines.length > 8 ? [...lines.slice(0, 8), `… (${lines.length - 8} more lines)`] : lines;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : JSON.stringify(error);
}

function isLoopback(hostname: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]';
}

/** `session` with `env` added to every command's environment (a command's own values win). */
function withEnv<T extends Experimental_SandboxSession>(session: T, env: Record<string, string>): T {
  return Object.create(session, {
    run: {
      value: (options: Parameters<T['run']>[0]) =>
        session.run({ ...options, env: { ...env, ...options.env } }),
    },
    spawn: {
      value: (options: Parameters<T['spawn']>[0]) =>
        session.spawn({ ...options, env: { ...env, ...options.env } }),
    },
  }) as T;
}
