/**
 * Where the host's memory goes in a 256 MiB write + read: V8's view (heap, external, array buffers)
 * against the kernel's (RSS), after a full GC. A large RSS with few live array buffers is memory the
 * allocator keeps, not memory the library holds.
 * The sandbox processes inherit this environment (local only): MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_ and
 * the like show whether their growth is the allocator's.
 * Usage: node --expose-gc bench/profile/host-memory.ts <srt|local> [write|read|stream|both]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { footprint, listProcesses, treeOf } from '../lib/memory.ts';

const [kind = 'local', what = 'both'] = process.argv.slice(2);
const directory = mkdtempSync(join(tmpdir(), 'bench-memory-'));
const session =
  kind === 'srt'
    ? await (
        await import('../../packages/sandbox-runtime/dist/index.js')
      ).createSrtNetworkSandboxSession({ directory })
    : await (
        await import('../../packages/sandbox-local/dist/index.js')
      ).createLocalNetworkSandboxSession({ directory });
// The sandbox's processes: everything under this process's children (srt's socat helper included).
const sandboxRss = () => {
  const roots = listProcesses().filter(info => info.ppid === process.pid && info.name !== 'socat');
  return footprint(roots.flatMap(root => treeOf(root.pid).map(info => info.pid))).rssMB.toFixed(0);
};
const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const show = (label: string) => {
  gc();
  const usage = process.memoryUsage();
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)}`;
  console.log(
    `${label.padEnd(28)} rss ${mb(usage.rss)} heapUsed ${mb(usage.heapUsed)} external ${mb(usage.external)} arrayBuffers ${mb(usage.arrayBuffers)}; sandbox processes rss ${sandboxRss()} (MB)`,
  );
};
const content = Buffer.alloc(256 * 2 ** 20, 7);
const path = `${session.defaultWorkingDirectory}/t.bin`;
show('before');
if (what === 'write' || what === 'both') {
  await session.writeBinaryFile({ path, content });
  show('after writeBinaryFile');
} else {
  await session.run({ command: `head -c ${content.byteLength} /dev/zero > ${path}` });
}
if (what === 'stream') {
  const reader = (await session.readFile({ path }))!.getReader();
  let bytes = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength;
  console.log('streamed', bytes);
  show('after readFile (stream)');
} else if (what !== 'write') {
  let read: Uint8Array | null = await session.readBinaryFile({ path });
  console.log('read', read?.byteLength);
  read = null;
  show('after readBinaryFile');
}
for (const seconds of [1, 5]) {
  await new Promise(resolve => setTimeout(resolve, seconds * 1000 - (seconds === 5 ? 1000 : 0)));
  show(`${seconds} s later`);
}
await session.destroy();
process.exit(0);
