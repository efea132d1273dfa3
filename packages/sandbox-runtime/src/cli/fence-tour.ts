/**
 * The fence tour: what an agent in a sandbox can and cannot do, each claim checked live on this
 * machine in a fresh sandbox, expected outcome next to the actual one. The demo shows it when no
 * model key is set.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { quoteWord } from '../fence/shell-words.js';
import type { SrtRuntimeSettings } from '../fence/runtime-settings.js';
import type { SrtNetworkSandboxSession } from '../sandbox/srt-view.js';
import { createSrtNetworkSandboxSession } from '../srt-lifecycle.js';
import type { SrtProgressEvent } from '../srt-options.js';

export interface TourRow {
  /** What the agent tries. */
  readonly attempt: string;
  readonly expected: string;
  readonly actual: string;
  /** The actual outcome is the expected one. */
  readonly ok: boolean;
}

export interface TourOptions {
  readonly directory?: string;
  readonly runtime?: SrtRuntimeSettings;
  readonly onProgress?: (event: SrtProgressEvent) => void;
  readonly signal?: AbortSignal;
}

const PORT = 4000;
const node = quoteWord(process.execPath);

/**
 * Prints `HTTP <status>` when the URL answers through the sandbox's proxy, `refused: <why>` when not
 * (the innermost cause: undici wraps the proxy's answer twice).
 */
const fetchScript =
  'fetch(process.argv[1], { signal: AbortSignal.timeout(20000) }).then(' +
  "r => console.log('HTTP ' + r.status), " +
  'e => { while (e.cause) e = e.cause; const m = String(e.message).split("\\n")[0]; ' +
  "const p = /Proxy response \\((\\d+)\\)/.exec(m); console.log('refused: ' + (p ? 'the proxy answered ' + p[1] : m)); })";

export async function runFenceTour(options: TourOptions = {}): Promise<TourRow[]> {
  const tag = `ai-sdk-sandbox-runtime-demo-${randomBytes(6).toString('hex')}`;
  const workspace = await mkdtemp(join(tmpdir(), 'ai-sdk-sandbox-runtime-demo-'));
  const home = homedir();
  const homeFile = join(home, `.${tag}`);
  const homeWrite = join(home, `.${tag}-written`);
  const etcWrite = join('/etc', tag);
  await writeFile(homeFile, `a secret of ${tag}\n`, { mode: 0o600 });
  let session: SrtNetworkSandboxSession | undefined;
  try {
    session = await createSrtNetworkSandboxSession({
      directory: options.directory,
      workspace,
      ports: [PORT],
      runtime: options.runtime,
      onProgress: options.onProgress,
      abortSignal: options.signal,
    });
    const sandbox = session;
    const run = (command: string, env?: Record<string, string>) =>
      sandbox.run({ command, env, abortSignal: options.signal });
    // What a tool said last, without its name and the path it names: "Read-only file system".
    const reason = (stderr: string) => stderr.trim().split('\n').at(-1)?.split(': ').at(-1) ?? '';
    const checks: Array<
      [attempt: string, expected: string, check: () => Promise<{ actual: string; ok: boolean }>]
    > = [
      [
        'read a file in your home',
        'refused: home hidden',
        async () => {
          const result = await run(`cat ${quoteWord(homeFile)}`);
          const read = result.exitCode === 0 || result.stdout.includes(tag);
          return { ok: !read, actual: read ? 'read it' : `refused: ${reason(result.stderr) || 'not there'}` };
        },
      ],
      [
        'write in its workspace',
        'allowed',
        async () => {
          const file = join(workspace, 'hello.txt');
          const result = await run(`echo hello > ${quoteWord(file)}`);
          const written = (await readFile(file, 'utf8').catch(() => '')) === 'hello\n';
          return {
            ok: result.exitCode === 0 && written,
            actual: written ? `allowed: ${file}` : `refused: ${reason(result.stderr)}`,
          };
        },
      ],
      [
        'write to /etc',
        'refused',
        async () => {
          const result = await run(`touch ${quoteWord(etcWrite)}`);
          const reached = existsSync(etcWrite);
          return {
            ok: !reached,
            actual: reached
              ? `allowed: ${etcWrite} exists`
              : `refused: ${reason(result.stderr) || 'not written'}`,
          };
        },
      ],
      [
        'write to your home',
        'never reaches it',
        async () => {
          const result = await run(`touch ${quoteWord(homeWrite)}`);
          const reached = existsSync(homeWrite);
          return {
            ok: !reached,
            actual: reached
              ? `reached it: ${homeWrite} exists`
              : result.exitCode === 0
                ? "stayed in the sandbox's empty home"
                : `refused: ${reason(result.stderr)}`,
          };
        },
      ],
      [
        'reach registry.npmjs.org',
        'allowed',
        async () => {
          const said = (
            await run(`${node} -e ${quoteWord(fetchScript)} https://registry.npmjs.org/`)
          ).stdout.trim();
          return {
            ok: said.startsWith('HTTP '),
            actual: said.startsWith('HTTP ') ? `allowed: ${said}` : said,
          };
        },
      ],
      [
        'reach example.com',
        'refused by the proxy',
        async () => {
          const said = (await run(`${node} -e ${quoteWord(fetchScript)} https://example.com/`)).stdout.trim();
          return {
            ok: said.startsWith('refused'),
            actual: said.startsWith('HTTP ') ? `reached it: ${said}` : said,
          };
        },
      ],
      [
        'read ANTHROPIC_API_KEY it was given',
        'a placeholder only',
        async () => {
          const key = `sk-demo-${randomBytes(16).toString('hex')}`;
          const result = await run('printenv ANTHROPIC_API_KEY; env', { ANTHROPIC_API_KEY: key });
          const seen = result.stdout.split('\n')[0] ?? '';
          const leaked = result.stdout.includes(key);
          return {
            ok: !leaked && seen.startsWith('aisdkhc_'),
            actual: leaked ? `read the real key ${key}` : `got ${seen.slice(0, 16)}…, the key nowhere`,
          };
        },
      ],
      [
        `serve on port ${PORT} to this host`,
        'reachable on a host port',
        async () => {
          const answer = `hello from port ${PORT} in ${tag}`;
          const serve = `require('node:http').createServer((q, s) => s.end(${JSON.stringify(answer)})).listen(${PORT}, '127.0.0.1')`;
          const server = await sandbox.spawn({
            command: `${node} -e ${quoteWord(serve)}`,
            abortSignal: options.signal,
          });
          try {
            const { url } = await sandbox.getPortEndpoint({ port: PORT });
            const body = await fetchUntilAnswered(url, options.signal);
            return {
              ok: body === answer,
              actual:
                body === answer ? `answered on ${url.replace(/^http:\/\//, '')}` : `no answer on ${url}`,
            };
          } finally {
            await server.kill();
          }
        },
      ],
    ];
    const rows: TourRow[] = [];
    for (const [attempt, expected, check] of checks) {
      options.signal?.throwIfAborted();
      const outcome = await check().catch((error: unknown) => ({
        ok: false,
        actual: `failed: ${error instanceof Error ? error.message : String(error)}`,
      }));
      rows.push({ attempt, expected, ...outcome });
    }
    return rows;
  } finally {
    await Promise.resolve(session?.destroy()).catch(() => undefined);
    // A fence that failed would have let these through: never leave them behind.
    await Promise.all(
      [homeFile, homeWrite, etcWrite, workspace].map(path => rm(path, { recursive: true, force: true })),
    );
  }
}

/** The body of the first answer from `url`, retrying while the server inside is still starting. */
async function fetchUntilAnswered(url: string, signal?: AbortSignal): Promise<string | undefined> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
      return await response.text();
    } catch {
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }
  return undefined;
}
