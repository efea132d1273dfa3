/**
 * Templates: what a sandbox prepares at creation, before it is handed over. The shape is the one
 * newer `@ai-sdk/harness` releases give from `agent.getSandboxTemplate()`: an identity (a cache key)
 * and a `prepare` that sets a basic session up. `@ai-sdk/harness` 1.0.122 has no such method, so
 * `sandboxTemplateFor()` builds the same thing from harness adapters.
 */
import type { HarnessAgentAdapter, HarnessAgentSandboxConfig } from '@ai-sdk/harness/agent';
import type { Experimental_SandboxSession } from '@ai-sdk/provider-utils';
import { createHash } from 'node:crypto';

export interface SandboxTemplate {
  /** Equal identities prepare equal sandboxes. */
  readonly identity: string;
  prepare(options: { session: Experimental_SandboxSession; abortSignal?: AbortSignal }): Promise<void>;
}

/**
 * A template that bootstraps `harnesses` (Claude Code's bridge and CLI, say), as the harness would on
 * a session's first start. Its identity is the one the harness computes for the same recipes.
 */
export async function sandboxTemplateFor(
  harnesses: HarnessAgentAdapter | ReadonlyArray<HarnessAgentAdapter>,
  sandboxConfig?: HarnessAgentSandboxConfig,
): Promise<SandboxTemplate> {
  const list = Array.isArray(harnesses) ? harnesses : [harnesses as HarnessAgentAdapter];
  const byId = new Map<string, string>();
  for (const harness of list) {
    const recipe = await harness.getBootstrap?.();
    if (recipe) byId.set(recipe.harnessId, recipeHash(recipe));
  }
  const identity = aggregateIdentity(byId, sandboxConfig);
  return {
    identity,
    async prepare({ session, abortSignal }) {
      // Imported when used: the harness is a peer, and this module must load without it.
      const { prepareSandboxForHarness } = await import('@ai-sdk/harness/agent');
      await prepareSandboxForHarness({ session, harnesses: list, sandboxConfig, abortSignal });
    },
  };
}

interface Recipe {
  harnessId: string;
  bootstrapDir: string;
  files: ReadonlyArray<{ path: string; content: string }>;
  commands: ReadonlyArray<{ command: string }>;
}

/** The harness's recipe hash: the same bytes in the same order, so both sides agree on the key. */
function recipeHash(recipe: Recipe): string {
  const hash = createHash('sha256');
  hash.update(`${recipe.harnessId}\0${recipe.bootstrapDir}\0`);
  for (const file of [...recipe.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(`${file.path}\0${file.content}\0`);
  }
  hash.update(`${JSON.stringify(recipe.commands)}\0`);
  hash.update('1\0');
  return hash.digest().subarray(0, 8).toString('hex');
}

function aggregateIdentity(byId: Map<string, string>, config: HarnessAgentSandboxConfig | undefined): string {
  const hash = createHash('sha256');
  hash.update(`1\0${config?.workDir ?? ''}\0${config?.bootstrapHash ?? ''}\0`);
  for (const id of [...byId.keys()].sort()) hash.update(`${id}\0${byId.get(id)}\0`);
  return hash.digest().subarray(0, 8).toString('hex');
}
