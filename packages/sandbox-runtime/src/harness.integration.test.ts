// The harness suite in the srt sandbox: the real HarnessAgent, Claude Code 1.0.41 and pi, fenced by
// real bubblewrap through real srt. Claude Code talks to the fake model API over HTTPS through srt's
// proxy, which terminates TLS and swaps the key's placeholder for the real key on the way out.
import { describeHarnessIntegration } from '@internal/sandbox-core/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll } from 'vitest';
import { createClaudeCode } from '@ai-sdk/harness-claude-code';
import type { HarnessAgentAdapter } from '@ai-sdk/harness/agent';
import { createSrtNetworkSandboxSession, DEFAULT_ALLOWED_DOMAINS, sandboxTemplateFor } from './index.js';

const directory = mkdtempSync(join(tmpdir(), 'srt-harness-'));
const defaultAuthorities = tls.getCACertificates('default');
afterAll(() => {
  tls.setDefaultCACertificates(defaultAuthorities);
  rmSync(directory, { recursive: true, force: true });
});

describeHarnessIntegration('srt sandbox', {
  fakeServer: { https: true },
  modelBaseUrl: server => server.httpsUrl!,
  create: async ({ env, modelBaseUrl, modelCertificate }) => {
    // srt's proxy runs in this process and checks the model server's certificate like any client.
    if (modelCertificate) tls.setDefaultCACertificates([...defaultAuthorities, modelCertificate]);
    return createSrtNetworkSandboxSession({
      directory,
      // Claude Code's bootstrap, prepared at creation: the first sandbox runs it, later ones copy it
      // from the template cache (the harness then finds its marker and skips the bootstrap).
      template: await sandboxTemplateFor(createClaudeCode() as unknown as HarnessAgentAdapter),
      ports: [4000, 4001],
      // The fake model listens on this host's loopback: allowed by its exact address and port.
      allowedDomains: [...DEFAULT_ALLOWED_DOMAINS, new URL(modelBaseUrl).host],
      // srt lists 127.0.0.1 in NO_PROXY, which would send the model traffic around the proxy and into
      // the sandbox's own empty network: a real API host is never loopback, so this is test-only.
      env: { ...env, NO_PROXY: '', no_proxy: '' },
    });
  },
});
