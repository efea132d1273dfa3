// The shared conformance suite against the srt sandbox: real bubblewrap through real srt.
import { describeSandboxConformance } from '@internal/sandbox-core/testing';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSrtNetworkSandboxSession } from './index.js';

const directory = mkdtempSync(join(tmpdir(), 'srt-conformance-'));

describeSandboxConformance('ai-sdk-sandbox-runtime', {
  create: () => createSrtNetworkSandboxSession({ directory, ports: [4100, 4101] }),
});
