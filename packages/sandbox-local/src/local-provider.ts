/**
 * The provider form, for `new HarnessAgent({ sandbox: createLocalSandboxProvider() })`: the harness
 * then creates, resumes and ends the sandboxes itself.
 */
import type { HarnessV1SandboxProvider } from '@ai-sdk/harness';
import { checkSandboxId } from '@internal/sandbox-core';
import type { LocalSandboxOptions } from './local-options.js';
import { createLocalNetworkSandboxSession, resumeLocalNetworkSandboxSession } from './local-sandbox.js';

export type LocalSandboxProviderOptions = Omit<LocalSandboxOptions, 'sandboxId' | 'abortSignal'>;

export function createLocalSandboxProvider(
  options: LocalSandboxProviderOptions = {},
): HarnessV1SandboxProvider {
  return {
    specificationVersion: 'harness-sandbox-v1',
    providerId: 'local',
    async createSession({ sessionId, abortSignal, onFirstCreate } = {}) {
      // A session id names the sandbox, so that resumeSession can find it from another process.
      const sandboxId = sessionId === undefined ? undefined : checkSandboxId(sessionId);
      const session = await createLocalNetworkSandboxSession({ ...options, sandboxId, abortSignal });
      if (onFirstCreate) {
        try {
          // No snapshots here: every new sandbox is a first creation.
          await onFirstCreate(session.restricted(), { abortSignal });
        } catch (error) {
          await session.destroy();
          throw error;
        }
      }
      return session;
    },
    resumeSession: ({ sessionId, abortSignal }) =>
      resumeLocalNetworkSandboxSession({ sandboxId: sessionId, directory: options.directory, abortSignal }),
  };
}
