import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeHarnessIntegration } from '@internal/sandbox-core/testing';
import { afterAll } from 'vitest';
import { createLocalNetworkSandboxSession } from './index.js';

// The local sandbox runs on the host with the user's environment. Keep the sandboxes' state out of
// ~/.ai-sdk-sandbox-local, and Claude Code's history out of the user's ~/.claude, with a HOME of the
// test's own. Removed after the suite's afterAll has destroyed the sandboxes.
const directory = mkdtempSync(join(tmpdir(), 'sandbox-local-harness-'));
const home = join(directory, 'home');
mkdirSync(home);
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeHarnessIntegration('local sandbox', {
  create: ({ env }) =>
    createLocalNetworkSandboxSession({ portCount: 2, env: { ...env, HOME: home }, directory }),
});
