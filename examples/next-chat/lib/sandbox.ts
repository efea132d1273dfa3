/**
 * Where the agent runs: `EXAMPLE_SANDBOX=srt` (the default) fences it with Anthropic's sandbox
 * runtime; `EXAMPLE_SANDBOX=local` runs it on this machine without isolation.
 */
import type { HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';
import type { HarnessAgentAdapter } from '@ai-sdk/harness/agent';
import type * as LocalExports from 'ai-sdk-sandbox-local';
import type * as SrtExports from 'ai-sdk-sandbox-runtime';
import { isAbsolute } from 'node:path';
import { sandboxKind } from './sandbox-kind';

/*
 * The sandbox packages are loaded by Node itself, when a conversation first needs one: each kind
 * loads only its own package, and neither is bundled. next.config.ts lists them in
 * serverExternalPackages, which is enough where they are installed from the registry; in this
 * repository they are workspace links into packages/, outside node_modules, and both Turbopack and
 * webpack bundle such packages whatever that list says. The ignore comments cover both cases.
 */
type SrtPackage = typeof SrtExports;
type LocalPackage = typeof LocalExports;

/** The port Claude Code's bridge listens on inside an srt sandbox (each sandbox has its own network). */
const BRIDGE_PORT = 4000;

/**
 * Variables every command of the sandbox gets. Claude Code adapter 1.0.41 cannot pass any per
 * session, so they have to be the sandbox's defaults. Without this one, Claude Code also calls
 * api.anthropic.com directly (feature flags, telemetry), whatever the base URL says.
 */
const SANDBOX_ENV = { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };

/** Where the sandboxes' directories go: EXAMPLE_SANDBOX_DIRECTORY, or the package's default. */
function sandboxDirectory(): string | undefined {
  const directory = process.env.EXAMPLE_SANDBOX_DIRECTORY || undefined;
  if (directory !== undefined && !isAbsolute(directory)) {
    throw new Error(`EXAMPLE_SANDBOX_DIRECTORY must be an absolute path, not ${JSON.stringify(directory)}.`);
  }
  return directory;
}

/**
 * Hosts the srt sandbox may reach: the package's defaults (the npm registry for the bootstrap, the
 * model APIs), the host of ANTHROPIC_BASE_URL when it points elsewhere, and EXAMPLE_ALLOWED_DOMAINS
 * (comma-separated) for anything else the agent needs.
 */
function allowedDomains(defaults: readonly string[]): string[] {
  const domains = [...defaults];
  const baseUrl = process.env.ANTHROPIC_BASE_URL;
  if (baseUrl) {
    try {
      domains.push(new URL(baseUrl).host);
    } catch {
      throw new Error(`ANTHROPIC_BASE_URL is not a URL: ${JSON.stringify(baseUrl)}.`);
    }
  }
  for (const entry of (process.env.EXAMPLE_ALLOWED_DOMAINS ?? '').split(',')) {
    if (entry.trim()) domains.push(entry.trim());
  }
  return [...new Set(domains)];
}

/**
 * A new sandbox for one conversation, ready for Claude Code. The srt sandbox installs Claude Code
 * while it is created (the template), so the first turn does not; the local one lets the harness
 * install it on the session's first start.
 */
export async function createConversationSandbox(
  sandboxId: string,
  claudeCode: HarnessAgentAdapter,
): Promise<HarnessV1NetworkSandboxSession> {
  const directory = sandboxDirectory();
  if (sandboxKind() === 'srt') {
    const { createSrtNetworkSandboxSession, sandboxTemplateFor, DEFAULT_ALLOWED_DOMAINS } = (await import(
      /* webpackIgnore: true */ /* turbopackIgnore: true */ 'ai-sdk-sandbox-runtime'
    )) as SrtPackage;
    return createSrtNetworkSandboxSession({
      sandboxId,
      directory,
      ports: [BRIDGE_PORT],
      allowedDomains: allowedDomains(DEFAULT_ALLOWED_DOMAINS),
      env: SANDBOX_ENV,
      template: await sandboxTemplateFor(claudeCode),
    });
  }
  const { createLocalNetworkSandboxSession } = (await import(
    /* webpackIgnore: true */ /* turbopackIgnore: true */ 'ai-sdk-sandbox-local'
  )) as LocalPackage;
  return createLocalNetworkSandboxSession({
    sandboxId,
    directory,
    // Claude Code refuses to skip its permission prompts as root unless told it is in a sandbox; the
    // srt sandbox says so itself, the local one leaves it to the caller.
    env: process.getuid?.() === 0 ? { ...SANDBOX_ENV, IS_SANDBOX: '1' } : SANDBOX_ENV,
  });
}
