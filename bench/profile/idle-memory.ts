/**
 * One idle srt sandbox's processes, one line each (RSS, PSS, and how much of the RSS is file-backed:
 * the node binary's pages are shared with every other node process). SUPERVISOR_NODE_FLAGS tries
 * node flags on the supervisor (see spawn-hook.ts).
 * Usage: node bench/profile/idle-memory.ts
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childrenAddedBy, footprint, treeOf } from '../lib/memory.ts';
import { addSupervisorFlags } from './spawn-hook.ts';

addSupervisorFlags();
const { createSrtNetworkSandboxSession } = await import('../../packages/sandbox-runtime/dist/index.js');
const directory = mkdtempSync(join(tmpdir(), 'bench-idle-'));
await (await createSrtNetworkSandboxSession({ directory })).destroy(); // srt's own start out of the way
const { value: session, added } = await childrenAddedBy(() => createSrtNetworkSandboxSession({ directory }));
await session.run({ command: 'true' });
await new Promise(resolve => setTimeout(resolve, 500));
const tree = treeOf(added[0]!.pid);
console.log(`${'process'.padEnd(16)} ${'RSS'.padStart(7)} ${'PSS'.padStart(7)} ${'file'.padStart(7)}  (MB)`);
for (const info of tree) {
  const status = readFileSync(`/proc/${info.pid}/status`, 'utf8');
  const file = Number(/RssFile:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  const print = footprint([info.pid]);
  console.log(
    `${info.name.padEnd(16)} ${print.rssMB.toFixed(1).padStart(7)} ${print.pssMB.toFixed(1).padStart(7)} ${file.toFixed(1).padStart(7)}`,
  );
}
const all = footprint(tree.map(info => info.pid));
console.log(`${'total'.padEnd(16)} ${all.rssMB.toFixed(1).padStart(7)} ${all.pssMB.toFixed(1).padStart(7)}`);
await session.destroy();
process.exit(0);
