/**
 * The chat: useChat posts the conversation here; the agent's turn streams back as UI message
 * chunks (text, and each tool call with its output).
 */
import type { UIMessage } from 'ai';
import { getAgent } from '../../../lib/agent';
import { isValidChatId, openConversation } from '../../../lib/conversations';

// Sandboxes and child processes: Node.js only, and never cached.
export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  const { id, messages } = (await request.json()) as { id?: unknown; messages?: UIMessage[] };
  if (!isValidChatId(id)) {
    return Response.json(
      { error: 'The chat id must be 1 to 100 letters, digits, "_" or "-".' },
      { status: 400 },
    );
  }
  // Claude Code keeps the conversation in its session: each turn sends only the new message.
  const last = messages?.at(-1);
  const prompt = last?.role === 'user' ? textOf(last) : '';
  if (!prompt) {
    return Response.json({ error: 'The last message must be a user message with text.' }, { status: 400 });
  }

  let session;
  try {
    ({ session } = await openConversation(id));
  } catch (error) {
    console.error(`The sandbox of conversation ${id} did not start:`, error);
    return Response.json({ error: `The sandbox did not start: ${messageOf(error)}` }, { status: 500 });
  }
  const result = await getAgent().agent.stream({ session, prompt, abortSignal: request.signal });
  return result.toUIMessageStreamResponse({
    // The default hides every error; this app runs on the developer's own machine, where the
    // reason helps more than it leaks.
    onError: messageOf,
  });
}

function textOf(message: UIMessage): string {
  return message.parts
    .map(part => (part.type === 'text' ? part.text : ''))
    .join('')
    .trim();
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
