import { defineConfig } from 'tsup';

// The core is bundled into each published package; its own build only produces the supervisor, the
// program the host starts inside the sandbox, which the tests need as a plain JavaScript file.
export default defineConfig({
  entry: { supervisor: 'src/supervisor/main.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  outDir: 'dist',
  clean: true,
  sourcemap: false,
});
