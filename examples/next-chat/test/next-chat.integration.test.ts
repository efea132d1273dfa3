/**
 * The example as a person uses it: the built Next.js app, a real browser, Claude Code in a real
 * sandbox (srt by default; EXAMPLE_SANDBOX=local for the host one), and a fake Anthropic API on
 * loopback in place of the model. Type a prompt, watch the answer and the command stream in, end the
 * conversation, and the sandbox is gone.
 *
 * With srt, the sandbox reaches the model only through srt's proxy, which terminates TLS to swap the
 * API key's placeholder for the real key: so the fake server speaks HTTPS, and the Next.js server
 * (where the proxy runs) trusts its certificate through NODE_EXTRA_CA_CERTS.
 *
 * Prints how long each step took, for the record (nothing is asserted about it).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  DEFAULT_FAKE_BASH_COMMAND,
  DEFAULT_FAKE_BASH_OUTPUT,
  startFakeAnthropicServer,
  type FakeAnthropicServer,
} from '@internal/sandbox-core/testing';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = resolve(exampleDir, '../..');
const kind = process.env.EXAMPLE_SANDBOX === 'local' ? 'local' : 'srt';
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const API_KEY = 'sk-ant-next-chat-example-0123456789';
const SYSTEM_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** The first turn creates the sandbox, which installs Claude Code (~300 MB from the npm registry). */
const TURN_TIMEOUT_MS = 8 * 60_000;

const run = promisify(execFile);

describe(`examples/next-chat in a browser (EXAMPLE_SANDBOX=${kind})`, () => {
  let work: string;
  let sandboxes: string;
  let server: FakeAnthropicServer;
  let next: ChildProcess | undefined;
  let nextLog = '';
  let appUrl: string;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    const started = Date.now();
    // The sandbox packages are used from their dist/, and the app from its production build.
    await run('pnpm', ['--filter', 'next-chat^...', 'run', 'build'], { cwd: repoRoot });
    await run('pnpm', ['exec', 'next', 'build'], {
      cwd: exampleDir,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });

    console.log(`[next-chat] packages and app built in ${seconds(started)}`);

    work = await mkdtemp(join(tmpdir(), 'next-chat-test-'));
    sandboxes = join(work, 'sandboxes');
    const home = join(work, 'home');
    await mkdir(home);
    // srt's NO_PROXY names 127.0.0.1 and localhost, so a client in the sandbox would try them on the
    // sandbox's own, empty, loopback. 127.0.0.2 is this machine's loopback too, but goes by the proxy.
    server = await startFakeAnthropicServer(
      kind === 'srt' ? { host: '127.0.0.2', https: { hostnames: ['127.0.0.2'] } } : {},
    );

    // The machine's CAs (the npm registry may sit behind one of them) plus the fake server's own.
    const caBundle = join(work, 'ca-bundle.pem');
    const systemCas = existsSync(SYSTEM_CA_BUNDLE) ? await readFile(SYSTEM_CA_BUNDLE, 'utf8') : '';
    await writeFile(caBundle, `${systemCas}\n${server.certificate ?? ''}`);

    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ANTHROPIC_API_KEY: API_KEY,
      ANTHROPIC_BASE_URL: kind === 'srt' ? server.httpsUrl : server.url,
      EXAMPLE_SANDBOX: kind,
      EXAMPLE_SANDBOX_DIRECTORY: sandboxes,
      NODE_EXTRA_CA_CERTS: caBundle,
      NEXT_TELEMETRY_DISABLED: '1',
      // The local sandbox runs Claude Code with this process's HOME: keep its state out of the user's.
      HOME: home,
    };
    // Credentials that would take precedence over the key above.
    for (const name of [
      'AI_GATEWAY_API_KEY',
      'VERCEL_OIDC_TOKEN',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN',
    ]) {
      delete env[name];
    }
    next = spawn('pnpm', ['exec', 'next', 'start', '--port', String(port), '--hostname', '127.0.0.1'], {
      cwd: exampleDir,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    next.stdout!.on('data', (chunk: Buffer) => (nextLog += chunk.toString()));
    next.stderr!.on('data', (chunk: Buffer) => (nextLog += chunk.toString()));
    const serving = Date.now();
    await waitForHttp(appUrl, () => nextLog);
    console.log(`[next-chat] next start answered in ${seconds(serving)}`);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
  }, 10 * 60_000);

  afterAll(async () => {
    await browser?.close();
    // SIGTERM lets srt stop its sandboxes; the group also takes pnpm's child, the Next.js server.
    if (next?.pid !== undefined && next.exitCode === null) {
      const exited = new Promise(resolve => next!.once('exit', resolve));
      process.kill(-next.pid, 'SIGTERM');
      await Promise.race([exited, new Promise(resolve => setTimeout(resolve, 10_000))]);
      if (next.exitCode === null) process.kill(-next.pid, 'SIGKILL');
    }
    await server?.close();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  }, 60_000);

  it(
    'streams the answer and the command it ran, then ending the conversation removes the sandbox',
    async () => {
      await page.goto(appUrl);
      await page
        .getByLabel('Message')
        .fill('Write a note in the working directory and tell me what it says.');
      const sent = Date.now();
      await page.getByRole('button', { name: 'Send' }).click();

      // The fake model has Claude Code run a command, then answers quoting what it printed.
      const answer = page.locator('article[data-role="assistant"] .text', {
        hasText: DEFAULT_FAKE_BASH_OUTPUT,
      });
      await answer.waitFor({ timeout: TURN_TIMEOUT_MS }).catch(async (error: unknown) => {
        const shown = await page.locator('main').innerText();
        throw new Error(`No answer appeared. The page shows:\n${shown}\n\nNext.js said:\n${nextLog}`, {
          cause: error,
        });
      });

      console.log(
        `[next-chat] first answer (sandbox, Claude Code install, session, turn) in ${seconds(sent)}`,
      );

      // The command, as the agent ran it, and its output, which only running it could produce.
      const tool = page.locator('article[data-role="assistant"] .tool');
      await expect.poll(() => tool.count()).toBe(1);
      await expect.poll(() => tool.getAttribute('data-state')).toBe('output-available');
      expect((await tool.locator('.tool-name').innerText()).toLowerCase()).toBe('bash');
      expect(await tool.locator('.tool-input').innerText()).toBe(`$ ${DEFAULT_FAKE_BASH_COMMAND}`);
      expect(await tool.locator('.tool-output').innerText()).toContain(DEFAULT_FAKE_BASH_OUTPUT);

      // Every model call came with the real key, over HTTPS through srt's proxy where srt is used.
      const calls = server.messageRequests();
      expect(calls.length).toBeGreaterThanOrEqual(2);
      for (const call of calls) {
        expect(call.headers['x-api-key']).toBe(API_KEY);
        expect(call.protocol).toBe(kind === 'srt' ? 'https' : 'http');
      }

      // The conversation has a sandbox of its own, named after the chat.
      const before = await sandboxDirectories(sandboxes);
      expect(before).toHaveLength(1);
      expect(before[0]).toMatch(/^chat-/);

      // The picture in the README is the default, srt, one.
      if (kind === 'srt') {
        await mkdir(join(repoRoot, 'docs'), { recursive: true });
        await page.screenshot({ path: join(repoRoot, 'docs', 'next-chat.png') });
      }

      const ending = Date.now();
      await page.getByRole('button', { name: 'End conversation' }).click();
      await page.getByText('Conversation ended').waitFor({ timeout: 60_000 });
      console.log(`[next-chat] conversation ended in ${seconds(ending)}`);
      expect(
        await sandboxDirectories(sandboxes),
        'ending the conversation removed its sandbox directory',
      ).toEqual([]);
      expect(await page.locator('article').count(), 'the page starts a fresh conversation').toBe(0);
    },
    TURN_TIMEOUT_MS + 2 * 60_000,
  );
});

/** The sandboxes' own directories; the package keeps its shared state in dot-directories beside them. */
async function sandboxDirectories(directory: string): Promise<string[]> {
  return (await readdir(directory)).filter(name => !name.startsWith('.'));
}

function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForHttp(url: string, log: () => string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error(`${url} did not answer within ${timeoutMs} ms. Next.js said:\n${log()}`);
    await new Promise(resolve => setTimeout(resolve, 250));
  }
}
