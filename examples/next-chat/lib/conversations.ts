/**
 * One sandbox and one Claude Code session per conversation, keyed by the chat's id: created on the
 * conversation's first message, ended by the "end conversation" button.
 */
import type { HarnessV1NetworkSandboxSession } from '@ai-sdk/harness';
import type { HarnessAgentSession } from '@ai-sdk/harness/agent';
import { getAgent } from './agent';
import { createConversationSandbox } from './sandbox';

export interface Conversation {
  readonly sandbox: HarnessV1NetworkSandboxSession;
  readonly session: HarnessAgentSession;
}

// On globalThis: Next.js bundles each route on its own, so a module-level map would not be shared
// between the chat route and the end route (nor survive a reload in `next dev`).
const key = Symbol.for('next-chat.conversations');
const store = ((globalThis as Record<symbol, unknown>)[key] ??= new Map()) as Map<
  string,
  Promise<Conversation>
>;

/** The chat id becomes the sandbox's id, so it must be one (useChat's ids are). */
const CHAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

export function isValidChatId(id: unknown): id is string {
  return typeof id === 'string' && CHAT_ID.test(id);
}

/** The conversation's sandbox and session, created on its first message. */
export function openConversation(chatId: string): Promise<Conversation> {
  let conversation = store.get(chatId);
  if (!conversation) {
    // The promise is stored at once: a second message sent while the first still sets up waits
    // for the same sandbox rather than creating another.
    conversation = startConversation(chatId);
    store.set(chatId, conversation);
    conversation.catch(() => store.delete(chatId));
  }
  return conversation;
}

/** Ends the Claude Code session and removes the sandbox. False when there was no such conversation. */
export async function endConversation(chatId: string): Promise<boolean> {
  const conversation = store.get(chatId);
  if (!conversation) return false;
  store.delete(chatId);
  // One still being set up is waited for; one that failed to start left nothing behind.
  const opened = await conversation.catch(() => undefined);
  if (!opened) return false;
  const { sandbox, session } = opened;
  // The session first: it stops the bridge, which runs in the sandbox. The sandbox belongs to us
  // (the harness never destroys one it was handed), so it is removed second, whatever happened.
  try {
    await session.destroy();
  } finally {
    await sandbox.destroy();
  }
  return true;
}

async function startConversation(chatId: string): Promise<Conversation> {
  const { agent, claudeCode } = getAgent();
  const sandbox = await createConversationSandbox(`chat-${chatId}`, claudeCode);
  try {
    const session = await agent.createSession({ sandboxSession: sandbox });
    return { sandbox, session };
  } catch (error) {
    await Promise.resolve(sandbox.destroy()).catch(() => {});
    throw error;
  }
}
