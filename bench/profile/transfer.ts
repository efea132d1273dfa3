/**
 * 256 MiB transfers in a loop, to profile from outside: run it under `node --cpu-prof` for the host,
 * with SUPERVISOR_PROF=<dir> to have the local sandbox's supervisor write its own CPU profile there
 * (it inherits this process's environment; the srt one does not), or attach strace/perf to the
 * supervisor (its pid is printed).
 * BENCH_LOCAL_DIST=<index.js> loads another build of the local package (a variant to compare).
 * PAUSE / PAUSE_AFTER (ms) hold the sandbox before / after the transfers, for a look from outside.
 * Usage: node bench/profile/transfer.ts <local|srt> <write|write-stream|read|read-stream> [times]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as LocalPackage from '../../packages/sandbox-local/dist/index.js';

const [kind = 'local', mode = 'write', times = '3'] = process.argv.slice(2);
if (process.env.SUPERVISOR_PROF)
  process.env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${process.env.SUPERVISOR_PROF}`;
const directory = mkdtempSync(join(tmpdir(), 'bench-transfer-'));
const session =
  kind === 'srt'
    ? await (
        await import('../../packages/sandbox-runtime/dist/index.js')
      ).createSrtNetworkSandboxSession({ directory })
    : await (
        (await import(
          process.env.BENCH_LOCAL_DIST ?? '../../packages/sandbox-local/dist/index.js'
        )) as typeof LocalPackage
      ).createLocalNetworkSandboxSession({ directory });
delete process.env.NODE_OPTIONS;
const size = 256 * 2 ** 20;
const content = Buffer.alloc(size, 7);
const path = `${session.defaultWorkingDirectory}/t.bin`;
await session.writeBinaryFile({ path, content });
const supervisor = await session.run({ command: 'echo $PPID' });
console.error(`supervisor pid (inside): ${supervisor.stdout.trim()}; host pid ${process.pid}`);
if (process.env.PAUSE) await new Promise(resolve => setTimeout(resolve, Number(process.env.PAUSE)));
for (let i = 0; i < Number(times); i++) {
  const t = performance.now();
  if (mode === 'write') await session.writeBinaryFile({ path, content });
  if (mode === 'write-stream') {
    let offset = 0;
    await session.writeFile({
      path,
      content: new ReadableStream({
        pull(controller) {
          if (offset >= size) return controller.close();
          controller.enqueue(content.subarray(offset, (offset += 2 ** 20)));
        },
      }),
    });
  }
  if (mode === 'read') await session.readBinaryFile({ path });
  if (mode === 'read-stream') {
    const reader = (await session.readFile({ path }))!.getReader();
    while (!(await reader.read()).done);
  }
  const ms = performance.now() - t;
  console.log(`${mode} 256 MiB: ${ms.toFixed(0)} ms (${(256 / (ms / 1000)).toFixed(0)} MB/s)`);
}
if (process.env.PAUSE_AFTER)
  await new Promise(resolve => setTimeout(resolve, Number(process.env.PAUSE_AFTER)));
await session.destroy();
process.exit(0);
