/**
 * A 256 MiB HTTP body through an srt sandbox's forwarded port, in a loop, to compare builds.
 * BENCH_SRT_DIST=<index.js> loads another build of the srt package (a variant to compare).
 * SUPERVISOR_NODE_FLAGS='--cpu-prof --cpu-prof-dir=/tmp' profiles the supervisor (see spawn-hook.ts).
 * Usage: node bench/profile/forward.ts [times] [MiB]
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as SrtPackage from '../../packages/sandbox-runtime/dist/index.js';
import { addSupervisorFlags } from './spawn-hook.ts';

addSupervisorFlags();

const times = Number(process.argv[2] ?? 5);
const bytes = Number(process.argv[3] ?? 256) * 2 ** 20;
const module = (await import(
  process.env.BENCH_SRT_DIST ?? '../../packages/sandbox-runtime/dist/index.js'
)) as typeof SrtPackage;
const session = await module.createSrtNetworkSandboxSession({
  directory: mkdtempSync(join(tmpdir(), 'bench-forward-')),
  ports: [4000],
});
const path = `${session.defaultWorkingDirectory}/server.mjs`;
await session.writeTextFile({
  path,
  content: readFileSync(new URL('../fixtures/http-server.mjs', import.meta.url), 'utf8'),
});
const server = await session.spawn({ command: `exec node ${path} 4000` });
const reader = server.stdout.getReader();
await reader.read();
const url = await session.getPortUrl({ port: 4000 });
for (let i = 0; i < times; i++) {
  const t = performance.now();
  await new Promise<void>((resolve, reject) =>
    get(`${url}/bytes/${bytes}`, { agent: false }, response => {
      response
        .on('data', () => undefined)
        .once('end', resolve)
        .once('error', reject);
    }).once('error', reject),
  );
  const ms = performance.now() - t;
  console.log(
    `${bytes / 2 ** 20} MiB body: ${ms.toFixed(0)} ms (${(bytes / 2 ** 20 / (ms / 1000)).toFixed(0)} MB/s)`,
  );
}
await server.kill();
if (process.env.SUPERVISOR_NODE_FLAGS) {
  await session.stop(); // the supervisor writes its profile as it exits; its files stay
  console.log(`sandbox files kept: ${session.defaultWorkingDirectory}/../tmp`);
} else {
  await session.destroy();
}
process.exit(0);
