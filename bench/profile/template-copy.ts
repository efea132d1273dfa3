/**
 * What a template cache could cost instead of preparing again: prepares one sandbox from the Claude
 * Code template, then times copying what the preparation made (the sandbox's home and tmp, where
 * the bootstrap installs) with cp -a (a full copy) and cp -al (hard links; the files would then
 * need to be read-only or copied on write).
 * Usage: node bench/profile/template-copy.ts
 */
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const { createSrtNetworkSandboxSession, sandboxTemplateFor } =
  await import('../../packages/sandbox-runtime/dist/index.js');
const directory = mkdtempSync(join(tmpdir(), 'bench-template-'));
const template = await sandboxTemplateFor(createClaudeCode() as never);
let t = performance.now();
const session = await createSrtNetworkSandboxSession({ directory, template });
console.log(`prepared in ${(performance.now() - t).toFixed(0)} ms`);
await session.stop();
const sandbox = join(session.defaultWorkingDirectory, '..');
console.log(
  execFileSync('du', ['-sh', '--apparent-size', join(sandbox, 'home'), join(sandbox, 'tmp')], {
    encoding: 'utf8',
  }).trim(),
);
console.log(`files: ${execFileSync('bash', ['-c', `find ${sandbox} | wc -l`], { encoding: 'utf8' }).trim()}`);
for (const flags of ['-a', '-al']) {
  execFileSync('sync');
  t = performance.now();
  execFileSync('cp', [flags, sandbox, `${sandbox}-copy${flags}`]);
  console.log(`cp ${flags}: ${(performance.now() - t).toFixed(0)} ms`);
}
execFileSync('rm', ['-rf', directory]);
process.exit(0);
