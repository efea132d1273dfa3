import { defineConfig } from 'tsup';

// One ESM bundle for the library, with the shared core inlined (it is not published on its own), and
// the supervisor as a separate file the host starts with `node`.
export default defineConfig({
  entry: { index: 'src/index.ts', supervisor: '../sandbox-core/src/supervisor/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  noExternal: ['@internal/sandbox-core'],
  // The supervisor is copied into each sandbox on its own: it must not share chunks with the library.
  splitting: false,
  external: ['@ai-sdk/harness', '@ai-sdk/provider-utils', 'zod', '@anthropic-ai/sandbox-runtime'],
});
