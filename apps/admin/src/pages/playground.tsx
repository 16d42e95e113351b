import type { ChatSource, Faq, SearchResponse } from '@kb/sdk';
import { useRef, useState, type FormEvent } from 'react';
import { kb, NAMESPACES, type Namespace } from '../api.ts';
import { Markdown } from '../markdown.tsx';
import { ErrorNote, ExternalLink, Section, useAction } from '../ui.tsx';

function NamespaceChecks({ value, onChange }: { value: Namespace[]; onChange(value: Namespace[]): void }) {
  return (
    <fieldset className="checks">
      <legend>Namespaces (none checked: all)</legend>
      {NAMESPACES.map((name) => (
        <label key={name} className="check">
          <input
            type="checkbox"
            name={name}
            checked={value.includes(name)}
            onChange={(event) => onChange(event.target.checked ? [...value, name] : value.filter((other) => other !== name))}
          />
          {name}
        </label>
      ))}
    </fieldset>
  );
}

function Sources({ sources }: { sources: ChatSource[] }) {
  if (sources.length === 0) return null;
  return (
    <div className="sources">
      <h4>Sources</h4>
      <ol>
        {sources.map((source) => (
          <li key={`${source.documentId}`}>
            {source.url ? <ExternalLink href={source.url}>{source.title}</ExternalLink> : source.title}{' '}
            <span className="muted small">
              {source.namespace} · {source.slug}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

export function PlaygroundPage() {
  return (
    <>
      <SearchPanel />
      <ChatPanel />
      <FaqPanel />
    </>
  );
}

function SearchPanel() {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState<'semantic' | 'hybrid'>('hybrid');
  const [topK, setTopK] = useState('5');
  const [namespaces, setNamespaces] = useState<Namespace[]>([]);
  const [results, setResults] = useState<SearchResponse>();
  const action = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const found = await action.run(() =>
      kb.search({ query, mode, topK: Number(topK), ...(namespaces.length > 0 ? { source: namespaces } : {}) }),
    );
    setResults(found);
  }

  return (
    <Section title="Search">
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <div className="row-form">
          <label className="grow">
            Query
            <input name="query" type="search" required value={query} onChange={(event) => setQuery(event.target.value)} />
          </label>
          <label>
            Mode
            <select name="mode" value={mode} onChange={(event) => setMode(event.target.value as 'semantic' | 'hybrid')}>
              <option value="hybrid">hybrid</option>
              <option value="semantic">semantic</option>
            </select>
          </label>
          <label>
            Top K
            <input name="topK" type="number" value={topK} onChange={(event) => setTopK(event.target.value)} className="narrow" />
          </label>
          <button type="submit" className="primary" disabled={action.busy}>
            Search
          </button>
        </div>
        <NamespaceChecks value={namespaces} onChange={setNamespaces} />
      </form>
      <ErrorNote error={action.error} />
      {results && results.count === 0 && <p className="muted">Nothing found.</p>}
      {results && results.count > 0 && (
        <ol className="results">
          {results.results.map((result) => (
            <li key={result.chunkId}>
              <div className="result-head">
                <strong>{result.url ? <ExternalLink href={result.url}>{result.documentTitle}</ExternalLink> : result.documentTitle}</strong>
                <span className="score" title="score">
                  {result.score.toFixed(3)}
                </span>
              </div>
              <p className="heading-path">{result.headingPath}</p>
              <p className="muted small">
                {result.namespace} · {result.slug}
              </p>
              <pre className="content">{result.content}</pre>
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}

interface Turn {
  question: string;
  answer: string;
  sources: ChatSource[];
  error?: unknown;
  done: boolean;
}

function ChatPanel() {
  const [message, setMessage] = useState('');
  const [namespaces, setNamespaces] = useState<Namespace[]>([]);
  const [conversationId, setConversationId] = useState<string>();
  const [turns, setTurns] = useState<Turn[]>([]);
  const [busy, setBusy] = useState(false);
  const stream = useRef<{ abort(): void }>(undefined);

  const update = (change: (turn: Turn) => Turn) => setTurns((all) => [...all.slice(0, -1), change(all[all.length - 1]!)]);

  async function ask(event: FormEvent) {
    event.preventDefault();
    const question = message.trim();
    if (!question) return;
    setMessage('');
    setBusy(true);
    setTurns((all) => [...all, { question, answer: '', sources: [], done: false }]);
    try {
      const answer = await kb.chat.stream({ message: question, ...(conversationId ? { conversationId } : {}), ...(namespaces.length > 0 ? { source: namespaces } : {}) });
      stream.current = answer;
      for await (const part of answer) {
        if (part.type === 'meta') {
          setConversationId(part.conversationId);
          update((turn) => ({ ...turn, sources: part.sources }));
        } else if (part.type === 'chunk') {
          update((turn) => ({ ...turn, answer: turn.answer + part.text }));
        } else {
          update((turn) => ({ ...turn, error: new Error(`The answer failed: ${part.message}`) }));
        }
      }
    } catch (error) {
      update((turn) => ({ ...turn, error }));
    } finally {
      stream.current = undefined;
      update((turn) => ({ ...turn, done: true }));
      setBusy(false);
    }
  }

  return (
    <Section
      title="Chat"
      actions={
        <button
          type="button"
          disabled={busy}
          onClick={() => {
            setConversationId(undefined);
            setTurns([]);
          }}
        >
          New conversation
        </button>
      }
    >
      {conversationId && (
        <p className="muted small">
          Conversation <code>{conversationId}</code>: each question goes on from the answers before it.
        </p>
      )}
      <div className="transcript" aria-live="polite">
        {turns.map((turn, index) => (
          <div key={index} className="turn">
            <div className="question">
              <span className="who">You</span>
              <p className="plain">{turn.question}</p>
            </div>
            <div className="answer" data-done={turn.done ? 'true' : 'false'}>
              <span className="who">Answer</span>
              <Markdown text={turn.answer || (turn.done ? '' : '…')} />
              <ErrorNote error={turn.error} />
              <Sources sources={turn.sources} />
            </div>
          </div>
        ))}
      </div>
      <form className="stack" onSubmit={(event) => void ask(event)}>
        <label>
          {turns.length === 0 ? 'Question' : 'Follow-up question'}
          <textarea name="message" rows={2} value={message} onChange={(event) => setMessage(event.target.value)} />
        </label>
        <NamespaceChecks value={namespaces} onChange={setNamespaces} />
        <div className="row-form">
          <button type="submit" className="primary" disabled={busy || message.trim() === ''}>
            {busy ? 'Answering…' : 'Ask'}
          </button>
          {busy && (
            <button type="button" onClick={() => stream.current?.abort()}>
              Stop
            </button>
          )}
        </div>
      </form>
    </Section>
  );
}

function FaqPanel() {
  const [topic, setTopic] = useState('');
  const [scope, setScope] = useState<Namespace | 'all'>('all');
  const [faq, setFaq] = useState<Faq>();
  const action = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFaq(await action.run(() => kb.faq({ q: topic, source: scope })));
  }

  return (
    <Section title="FAQ">
      <form className="row-form" onSubmit={(event) => void submit(event)}>
        <label className="grow">
          Topic
          <input name="topic" required value={topic} onChange={(event) => setTopic(event.target.value)} />
        </label>
        <label>
          Namespace
          <select name="scope" value={scope} onChange={(event) => setScope(event.target.value as Namespace | 'all')}>
            <option value="all">all</option>
            {NAMESPACES.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Writing…' : 'Make FAQ'}
        </button>
      </form>
      <ErrorNote error={action.error} />
      {faq && (
        <div className="faq">
          <p className="muted small">
            {faq.language} · {faq.scope} · {faq.cached ? 'from the cache' : 'made now'} · {new Date(faq.generatedAt).toLocaleString()}
          </p>
          <Markdown text={faq.content} />
          <Sources sources={faq.sources} />
        </div>
      )}
    </Section>
  );
}
