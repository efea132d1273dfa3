'use client';

import { useChat } from '@ai-sdk/react';
import { useState } from 'react';
import { Message } from './message';

const SANDBOX_LABEL = { srt: "Anthropic's sandbox runtime (srt)", local: 'this machine, without isolation' };

/** The page: one conversation at a time; ending it starts a fresh one. */
export function ChatApp({ sandbox }: { sandbox: 'srt' | 'local' }) {
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<string>();
  return (
    <main className="shell">
      <header className="top">
        <h1>Claude Code, sandboxed</h1>
        <p className="sub">Each conversation gets a sandbox of its own, in {SANDBOX_LABEL[sandbox]}.</p>
      </header>
      <Conversation
        key={generation}
        notice={notice}
        onEnded={text => {
          setNotice(text);
          setGeneration(n => n + 1);
        }}
        onStarted={() => setNotice(undefined)}
      />
    </main>
  );
}

function Conversation({
  notice,
  onEnded,
  onStarted,
}: {
  notice: string | undefined;
  onEnded: (notice: string) => void;
  onStarted: () => void;
}) {
  const { id, messages, sendMessage, status, error, stop } = useChat();
  const [input, setInput] = useState('');
  const [ending, setEnding] = useState(false);
  const [endError, setEndError] = useState<string>();
  const busy = status === 'submitted' || status === 'streaming';
  const waiting = status === 'submitted' && messages.at(-1)?.role === 'user';

  const send = (event: React.FormEvent) => {
    event.preventDefault();
    const text = input.trim();
    if (!text || busy) return;
    onStarted();
    void sendMessage({ text });
    setInput('');
  };

  const end = async () => {
    setEnding(true);
    setEndError(undefined);
    if (busy) await stop();
    try {
      const response = await fetch('/api/chat/end', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id }),
      });
      const body = (await response.json()) as { error?: string };
      if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
      onEnded('Conversation ended: its Claude Code session was stopped and its sandbox removed.');
    } catch (cause) {
      setEndError(`The conversation did not end: ${(cause as Error).message}`);
      setEnding(false);
    }
  };

  return (
    <>
      <section className="log" aria-live="polite">
        {messages.length === 0 && (
          <div className="empty">
            {notice ? <p className="notice">{notice}</p> : null}
            <p>Ask the agent to do something: it can run commands and edit files in its sandbox.</p>
          </div>
        )}
        {messages.map(message => (
          <Message key={message.id} message={message} />
        ))}
        {waiting && (
          <p className="pending">
            {messages.length === 1
              ? 'Starting a sandbox for this conversation… The first one installs Claude Code in it, which can take a minute.'
              : 'Thinking…'}
          </p>
        )}
        {error && <p className="error">{error.message}</p>}
        {endError && <p className="error">{endError}</p>}
      </section>
      <form className="composer" onSubmit={send}>
        <input
          aria-label="Message"
          placeholder="Ask the agent…"
          value={input}
          onChange={event => setInput(event.target.value)}
          disabled={ending}
          autoFocus
        />
        <button type="submit" disabled={busy || ending || !input.trim()}>
          Send
        </button>
        <button type="button" className="secondary" onClick={end} disabled={ending || messages.length === 0}>
          {ending ? 'Ending…' : 'End conversation'}
        </button>
      </form>
    </>
  );
}
