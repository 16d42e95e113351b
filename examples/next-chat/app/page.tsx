'use client';

import { useChat } from '@ai-sdk/react';
import type { KbUIMessage } from '@kb/sdk/ai';
import { useState } from 'react';

export default function Page() {
  const { messages, sendMessage, status, stop, error } = useChat<KbUIMessage>();
  const [input, setInput] = useState('');
  return (
    <main style={{ maxWidth: 720, margin: '2rem auto', fontFamily: 'system-ui' }}>
      <h1>Ask the docs</h1>
      {messages.map((message) => (
        <div key={message.id} style={{ margin: '1rem 0' }}>
          <strong>{message.role === 'user' ? 'You' : 'Docs'}</strong>
          {message.parts.map((part, i) =>
            part.type === 'text' ? (
              <p key={i} style={{ whiteSpace: 'pre-wrap' }}>{part.text}</p>
            ) : part.type === 'source-url' ? (
              <div key={i}>
                <a href={part.url}>{part.title ?? part.url}</a>
              </div>
            ) : null,
          )}
        </div>
      ))}
      {error && <p role="alert">{error.message}</p>}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (input.trim()) void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input value={input} onChange={(e) => setInput(e.target.value)} placeholder="How do I…?" style={{ width: '80%' }} />
        {status === 'streaming' ? <button type="button" onClick={() => void stop()}>Stop</button> : <button type="submit">Ask</button>}
      </form>
    </main>
  );
}
