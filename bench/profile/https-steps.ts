/**
 * An HTTPS request from inside the srt sandbox through srt's proxy, split by curl's own timers:
 * connect (to the in-sandbox proxy port), CONNECT answered and TLS done (appconnect), first byte,
 * total; the same request from the host straight to the server for comparison.
 * Usage: node bench/profile/https-steps.ts [times]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostRun } from '../lib/host.ts';
import { summarize } from '../lib/stats.ts';

const times = Number(process.argv[2] ?? 15);
const { createSrtNetworkSandboxSession } = await import('../../packages/sandbox-runtime/dist/index.js');
const session = await createSrtNetworkSandboxSession({
  directory: mkdtempSync(join(tmpdir(), 'bench-https-')),
});
const curl =
  "curl -sS -o /dev/null -w '%{time_connect} %{time_appconnect} %{time_starttransfer} %{time_total}' https://registry.npmjs.org/-/ping";
const fields = ['connect', 'TLS done (appconnect)', 'first byte', 'total'];
const samples = { srt: fields.map(() => [] as number[]), host: fields.map(() => [] as number[]) };
for (let i = 0; i < times; i++) {
  for (const [name, run] of [
    ['srt', () => session.run({ command: curl })],
    ['host', () => hostRun(curl)],
  ] as const) {
    const result = await run();
    result.stdout
      .trim()
      .split(' ')
      .forEach((value, index) => samples[name][index]!.push(Number(value) * 1000));
  }
}
console.log(`curl timers, median ms (${times} requests, each a new connection)`);
console.log(`  ${''.padEnd(24)} ${'srt'.padStart(8)} ${'host'.padStart(8)}`);
fields.forEach((field, index) => {
  const srt = summarize(samples.srt[index]!).median;
  const host = summarize(samples.host[index]!).median;
  console.log(`  ${field.padEnd(24)} ${srt.toFixed(1).padStart(8)} ${host.toFixed(1).padStart(8)}`);
});
await session.destroy();
process.exit(0);
