/**
 * Port forwarding: an HTTP server inside the sandbox, reached from the host through the forwarded
 * port, against the same server on the host's loopback. Under srt every connection is carried by the
 * supervisor link; the local sandbox's port is a host port, so it is the direct case again.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Agent, get } from 'node:http';
import type { BenchContext } from '../lib/context.ts';
import { interleave } from '../lib/interleave.ts';
import type { Summary } from '../lib/stats.ts';

const GROUP = 'Ports';
const SERVER = new URL('../fixtures/http-server.mjs', import.meta.url);

export async function httpCases(context: BenchContext): Promise<void> {
  const { srt, local } = context;
  const source = await readFile(SERVER, 'utf8');
  const stops: Array<() => unknown> = [];
  try {
    const host = await startOnHost(stops);
    const urls = new Map<string, string>([['host', host]]);
    for (const [name, session, port] of [
      ['local', local, local.ports[0]!],
      ['srt', srt, srt.ports[0]!],
    ] as const) {
      const path = `${session.defaultWorkingDirectory}/http-server.mjs`;
      await session.writeTextFile({ path, content: source });
      const child = await session.spawn({ command: `exec node ${path} ${port}` });
      stops.push(() => child.kill());
      await firstLine(child.stdout);
      urls.set(name, await session.getPortUrl({ port }));
    }

    const fresh = await interleave(
      [...urls].map(([name, url]) => ({
        name,
        run: async () => void (await fetchBody(`${url}/small`, false)),
      })),
      { iterations: context.n(150), warmup: 5 },
    );
    context.results.addCase(GROUP, 'HTTP request, new connection', fresh, {
      targets: { srt: ratioTarget('<= 1.3x direct', (summary, base) => summary.median <= 1.3 * base.median) },
    });

    const agents = new Map(
      [...urls.keys()].map(name => [name, new Agent({ keepAlive: true, maxSockets: 1 })]),
    );
    const kept = await interleave(
      [...urls].map(([name, url]) => ({
        name,
        run: async () => void (await fetchBody(`${url}/small`, agents.get(name)!)),
      })),
      { iterations: context.n(300), warmup: 5 },
    );
    for (const agent of agents.values()) agent.destroy();
    context.results.addCase(GROUP, 'HTTP request, keep-alive', kept);

    for (const [mib, iterations] of [
      [16, context.n(8)],
      [256, context.n(3)],
    ] as const) {
      const bytes = mib * 2 ** 20;
      const body = await interleave(
        [...urls].map(([name, url]) => ({
          name,
          run: async () => {
            const received = await fetchBody(`${url}/bytes/${bytes}`, false);
            if (received !== bytes) throw new Error(`received ${received} of ${bytes} bytes`);
          },
        })),
        { iterations, warmup: 1 },
      );
      context.results.addCase(GROUP, `HTTP ${mib} MiB body`, body, {
        bytes,
        targets: {
          srt: ratioTarget('>= 60% of direct', (summary, base) => base.median / summary.median >= 0.6),
        },
      });
    }
  } finally {
    for (const stop of stops) await Promise.resolve(stop()).catch(() => undefined);
  }
}

function ratioTarget(text: string, met: (summary: Summary, baseline: Summary) => boolean) {
  return (summary: Summary, baseline: Summary | undefined) => ({
    text,
    met: baseline ? met(summary, baseline) : false,
  });
}

/** GETs `url` and counts the body's bytes; `false` as agent means a new connection, closed after. */
function fetchBody(url: string, agent: Agent | false): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { agent }, response => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      response.once('end', () => resolve(bytes));
      response.once('error', reject);
    }).once('error', reject);
  });
}

async function startOnHost(stops: Array<() => unknown>): Promise<string> {
  const child = spawn(process.execPath, [new URL(SERVER).pathname, '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stops.push(() => child.kill());
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
    child.once('exit', () => reject(new Error('the host HTTP server exited')));
  });
  return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;
}

/** Waits for the server's "listening" line. */
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  const { value } = await reader.read();
  reader.releaseLock();
  return new TextDecoder().decode(value);
}
