import type { Conversation } from '@kb/sdk';
import { useState, type FormEvent } from 'react';
import { formatDate, kb, type Namespace } from '../api.ts';
import { Markdown } from '../markdown.tsx';
import { ErrorNote, ExternalLink, NamespaceSelect, Pager, Section, usePaged } from '../ui.tsx';

const PAGE_SIZE = 10;

export function ConversationsPage() {
  const [namespace, setNamespace] = useState<Namespace | ''>('');
  const [language, setLanguage] = useState('');
  const [open, setOpen] = useState<Conversation>();
  const {
    result: page,
    setSkip,
    apply: applyFilters,
  } = usePaged(
    { source: '' as Namespace | '', language: '' },
    (filters, paging) =>
      kb.conversations.list({
        ...(filters.source ? { source: filters.source } : {}),
        ...(filters.language ? { language: filters.language } : {}),
        ...paging,
      }),
    PAGE_SIZE,
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    setOpen(undefined);
    applyFilters({ source: namespace, language: language.trim() });
  }

  if (open) return <Thread conversation={open} onBack={() => setOpen(undefined)} />;

  return (
    <Section title="Stored conversations">
      <form className="row-form" onSubmit={apply}>
        <NamespaceSelect value={namespace} onChange={setNamespace} all />
        <label>
          Language
          <input name="language" value={language} onChange={(event) => setLanguage(event.target.value)} placeholder="any (en, fr, …)" className="narrow" />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={page.error} />
      {page.data && page.data.conversations.length === 0 && <p className="muted">No conversations match.</p>}
      {page.data && page.data.conversations.length > 0 && (
        <ul className="conversations">
          {page.data.conversations.map((conversation) => {
            const first = conversation.messages.find((message) => message.role === 'user');
            return (
              <li key={conversation.id}>
                <button type="button" className="link" onClick={() => setOpen(conversation)}>
                  {first?.content.slice(0, 160) || '(no question)'}
                </button>
                <p className="muted small">
                  {formatDate(conversation.updatedAt)} · {conversation.language ?? 'language unknown'} · {conversation.sources.length > 0 ? conversation.sources.join(', ') : 'all namespaces'} ·{' '}
                  {conversation.messages.length} messages
                </p>
              </li>
            );
          })}
        </ul>
      )}
      {page.data && <Pager total={page.data.total} take={page.data.take} skip={page.data.skip} onPage={setSkip} />}
    </Section>
  );
}

function Thread({ conversation, onBack }: { conversation: Conversation; onBack(): void }) {
  return (
    <>
      <p>
        <button type="button" onClick={onBack}>
          ← All conversations
        </button>
      </p>
      <Section title="Conversation">
        <p className="muted small">
          <code>{conversation.id}</code> · started {formatDate(conversation.createdAt)} · {conversation.language ?? 'language unknown'}
        </p>
        <div className="transcript">
          {conversation.messages.map((message) => (
            <div key={message.id} className={message.role === 'user' ? 'question' : 'answer'}>
              <span className="who">
                {message.role === 'user' ? 'Question' : 'Answer'} · {formatDate(message.createdAt)}
                {message.interrupted ? ' · interrupted' : ''}
              </span>
              {message.role === 'user' ? <p className="plain">{message.content}</p> : <Markdown text={message.content} />}
              {message.sources.length > 0 && (
                <ol className="sources">
                  {message.sources.map((source) => (
                    <li key={source.documentId}>
                      {source.url ? <ExternalLink href={source.url}>{source.title}</ExternalLink> : source.title}{' '}
                      <span className="muted small">{source.namespace}</span>
                    </li>
                  ))}
                </ol>
              )}
            </div>
          ))}
        </div>
      </Section>
    </>
  );
}
