/** "End conversation": stops the conversation's Claude Code session and removes its sandbox. */
import { endConversation, isValidChatId } from '../../../../lib/conversations';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function POST(request: Request): Promise<Response> {
  const { id } = (await request.json()) as { id?: unknown };
  if (!isValidChatId(id)) {
    return Response.json(
      { error: 'The chat id must be 1 to 100 letters, digits, "_" or "-".' },
      { status: 400 },
    );
  }
  try {
    return Response.json({ ended: await endConversation(id) });
  } catch (error) {
    console.error(`Conversation ${id} did not end cleanly:`, error);
    return Response.json({ error: error instanceof Error ? error.message : String(error) }, { status: 500 });
  }
}
