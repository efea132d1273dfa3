import { sandboxKind } from '../lib/sandbox-kind';
import { ChatApp } from './chat-app';

// The sandbox kind comes from the server's environment at request time, not at build time.
export const dynamic = 'force-dynamic';

export default function Page() {
  return <ChatApp sandbox={sandboxKind()} />;
}
