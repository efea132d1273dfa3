/**
 * The agent: Claude Code driven by HarnessAgent. One definition for the whole server; each
 * conversation gets a session of its own (see conversations.ts).
 */
import { HarnessAgent, type HarnessAgentAdapter } from '@ai-sdk/harness/agent';
import { createClaudeCode } from '@ai-sdk/harness-claude-code';

let cached: { agent: HarnessAgent; claudeCode: HarnessAgentAdapter } | undefined;

/** Built on first use, so `next build` can load the route without a key in its environment. */
export function getAgent(): { agent: HarnessAgent; claudeCode: HarnessAgentAdapter } {
  if (cached) return cached;
  const apiKey = process.env.ANTHROPIC_API_KEY;
  const baseUrl = process.env.ANTHROPIC_BASE_URL || undefined;
  // Explicit auth, so the key and base URL are exactly the ones of this environment: otherwise an
  // AI_GATEWAY_API_KEY in it would win, and the adapter would also run the user's ~/.claude/settings.json
  // apiKeyHelper. Without a key, the adapter picks from those sources itself.
  const claudeCode = createClaudeCode(
    apiKey ? { auth: { anthropic: { apiKey, baseUrl } } } : undefined,
    // 1.0.41 is typed against its own copy of @ai-sdk/harness; the runtime contract is the same.
  ) as unknown as HarnessAgentAdapter;
  cached = { agent: new HarnessAgent({ id: 'next-chat', harness: claudeCode }), claudeCode };
  return cached;
}
