import { defineConfig } from 'vitest/config';

// Two projects: `unit` is fast and needs nothing but Node (the supervisor runs on this host, no srt);
// `integration` drives the real pieces: bubblewrap through srt, HarnessAgent and its adapters, the
// npm registry for the adapters' bootstrap. Both run in `pnpm test`.
export default defineConfig({
  test: {
    globalSetup: ['./scripts/vitest-global-setup.ts'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts'],
          exclude: ['**/*.integration.test.ts', '**/*.security.test.ts', '**/node_modules/**'],
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['packages/*/src/**/*.integration.test.ts', 'examples/*/test/**/*.integration.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // The integration tests start real sandboxes and bridges; two cores do not run many at once.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          // Attacks on real srt sandboxes (`pnpm test:security`), written up in docs/security.md. One
          // file at a time: several start child hosts, fill the disk or count processes and sockets.
          name: 'security',
          include: ['packages/*/src/**/*.security.test.ts'],
          globalSetup: ['./packages/sandbox-runtime/src/security/bundle-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
