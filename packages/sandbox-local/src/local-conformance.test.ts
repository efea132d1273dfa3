// The shared conformance suite against the local sandbox: every capability, nothing skipped.
import { describeSandboxConformance } from '@internal/sandbox-core/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalNetworkSandboxSession } from './index.js';

const directory = mkdtempSync(join(tmpdir(), 'local-conformance-'));

describeSandboxConformance('ai-sdk-sandbox-local', {
  create: () => createLocalNetworkSandboxSession({ directory, portCount: 2 }),
});
