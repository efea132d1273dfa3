/**
 * The provider form, for `new HarnessAgent({ sandbox: createSrtSandboxProvider() })`: the harness then
 * creates, resumes and ends the sandboxes itself, naming each after its session so that a later
 * process can resume it.
 */
import type { HarnessV1SandboxProvider } from '@ai-sdk/harness';
import { checkSandboxId } from '@internal/sandbox-core';
import { createSrtNetworkSandboxSession, resumeSrtNetworkSandboxSession } from './srt-lifecycle.js';
import type { SrtSandboxOptions } from './srt-options.js';

export type SrtSandboxProviderOptions = Omit<SrtSandboxOptions, 'sandboxId' | 'abortSignal' | 'template'>;

export function createSrtSandboxProvider(options: SrtSandboxProviderOptions = {}): HarnessV1SandboxProvider {
  return {
    specificationVersion: 'harness-sandbox-v1',
    providerId: 'srt',
    async createSession({ sessionId, abortSignal, identity, onFirstCreate } = {}) {
      const sandboxId = sessionId === undefined ? undefined : checkSandboxId(sessionId);
      // The harness's one-time bootstrap is a template like any other: run at creation, and a
      // sandbox whose bootstrap fails is removed.
      const template = onFirstCreate && {
        identity: identity ?? 'harness-bootstrap',
        prepare: ({
          session,
          abortSignal: signal,
        }: {
          session: Parameters<typeof onFirstCreate>[0];
          abortSignal?: AbortSignal;
        }) => onFirstCreate(session, { abortSignal: signal }),
      };
      return createSrtNetworkSandboxSession({ ...options, sandboxId, abortSignal, template });
    },
    resumeSession: ({ sessionId, abortSignal }) =>
      resumeSrtNetworkSandboxSession({
        sandboxId: sessionId,
        directory: options.directory,
        runtime: options.runtime,
        abortSignal,
      }),
  };
}
