/**
 * Global setup of the security project: bundles the package's sources into one ESM file that a
 * child `node` process can import. Several attacks need a host of their own (a host that is
 * SIGKILLed, a host with other srt runtime settings, two hosts racing for one sandbox id), and the
 * package's own dist/ is another build's to clean and rewrite at any time.
 *
 * The bundle lives under the package's node_modules, so its external dependencies resolve as the
 * published package's would, with the supervisor beside it where `locateSupervisorScript` looks.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
export const SECURITY_BUNDLE_DIR = join(packageDir, 'node_modules', '.security-build');
export const SECURITY_BUNDLE = join(SECURITY_BUNDLE_DIR, 'index.js');

export default async function setup(): Promise<void> {
  // esbuild comes with tsup, the repository's bundler; it is not a dependency of its own.
  const fromTsup = createRequire(createRequire(import.meta.url).resolve('tsup'));
  const esbuild = fromTsup('esbuild') as { build(options: Record<string, unknown>): Promise<unknown> };
  mkdirSync(SECURITY_BUNDLE_DIR, { recursive: true });
  await esbuild.build({
    entryPoints: [join(packageDir, 'src', 'index.ts')],
    outfile: SECURITY_BUNDLE,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'error',
    external: ['@ai-sdk/harness', '@ai-sdk/provider-utils', 'zod', '@anthropic-ai/sandbox-runtime'],
  });
  // The root global setup has built the supervisor by now (setups run in order).
  const supervisor = join(dirname(packageDir), 'sandbox-core', 'dist', 'supervisor.js');
  copyFileSync(supervisor, join(SECURITY_BUNDLE_DIR, 'supervisor.js'));
}
