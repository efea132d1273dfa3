import { defineConfig } from 'tsup';

// One ESM bundle for the library, with the shared core inlined (it is not published on its own), the
// supervisor as a separate file the host starts with `node`, and the command-line tool (its
// `#!/usr/bin/env node` line comes from src/cli/main.ts: tsup has no banner per entry).
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    supervisor: '../sandbox-core/src/supervisor/main.ts',
    cli: 'src/cli/main.ts',
  },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  noExternal: ['@internal/sandbox-core'],
  // The supervisor is copied into each sandbox on its own: it must not share chunks with the library.
  splitting: false,
  // The demo imports the Claude Code adapter when it runs: the application's to install, never bundled.
  external: [
    '@ai-sdk/harness',
    '@ai-sdk/harness-claude-code',
    '@ai-sdk/provider-utils',
    'zod',
    '@anthropic-ai/sandbox-runtime',
  ],
});
