/**
 * Child process of the startup case: creates the first sandbox of a fresh process and prints, as one
 * JSON line, how long the import, the creation and the first command's result took.
 * Usage: node first-sandbox.ts <srt|local|host> <directory>
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const [kind, directory] = process.argv.slice(2);
const t0 = performance.now();
let importMs = 0;
let firstMs = 0;
if (kind === 'host') {
  await new Promise(resolve => spawn('/bin/bash', ['-c', 'true']).once('close', resolve));
  firstMs = performance.now() - t0;
} else if (kind === 'srt') {
  const { createSrtNetworkSandboxSession } = await import('../packages/sandbox-runtime/dist/index.js');
  importMs = performance.now() - t0;
  const t1 = performance.now();
  const session = await createSrtNetworkSandboxSession({ directory });
  await session.run({ command: 'true' });
  firstMs = performance.now() - t1;
  await session.destroy();
} else if (kind === 'local') {
  const { createLocalNetworkSandboxSession } = await import('../packages/sandbox-local/dist/index.js');
  importMs = performance.now() - t0;
  const t1 = performance.now();
  const session = await createLocalNetworkSandboxSession({ directory });
  await session.run({ command: 'true' });
  firstMs = performance.now() - t1;
  await session.destroy();
} else {
  throw new Error(`unknown kind ${kind}`);
}
console.log(JSON.stringify({ importMs, firstMs }));
process.exit(0);
