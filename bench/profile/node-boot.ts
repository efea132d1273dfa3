/**
 * How long node takes to start inside an srt sandbox, with the environment the sandbox gives every
 * process (srt's HTTP(S)_PROXY and NODE_EXTRA_CA_CERTS, our NODE_USE_ENV_PROXY=1) and without. The
 * supervisor is such a node process, so this bounds a sandbox's start.
 * Usage: node bench/profile/node-boot.ts
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { summarize } from '../lib/stats.ts';

const { createSrtNetworkSandboxSession } = await import('../../packages/sandbox-runtime/dist/index.js');
const session = await createSrtNetworkSandboxSession({
  directory: mkdtempSync(join(tmpdir(), 'bench-boot-')),
});
const variants: Array<[string, string]> = [
  ['true (the run itself)', 'true'],
  ['node -e 0, sandbox environment', 'node -e 0'],
  ['node -e 0, without NODE_USE_ENV_PROXY', 'env -u NODE_USE_ENV_PROXY node -e 0'],
  ['node -e 0, without NODE_EXTRA_CA_CERTS', 'env -u NODE_EXTRA_CA_CERTS node -e 0'],
  ['node -e 0, without both', 'env -u NODE_USE_ENV_PROXY -u NODE_EXTRA_CA_CERTS node -e 0'],
];
const samples = new Map(variants.map(([label]) => [label, [] as number[]]));
for (let i = 0; i < 15; i++) {
  for (const [label, command] of variants) {
    const t = performance.now();
    const result = await session.run({ command });
    if (result.exitCode !== 0) throw new Error(`${command}: ${result.stderr}`);
    if (i > 1) samples.get(label)!.push(performance.now() - t);
  }
}
console.log('run(command) inside srt, median / p95 ms');
for (const [label, list] of samples) {
  const { median, p95 } = summarize(list);
  console.log(`  ${label.padEnd(44)} ${median.toFixed(1).padStart(7)} ${p95.toFixed(1).padStart(7)}`);
}
await session.destroy();
process.exit(0);
