import type { FeedbackPage as FeedbackList, FeedbackQuery } from '@kb/sdk';
import { useState, type FormEvent } from 'react';
import { formatDate, kb, type Namespace } from '../api.ts';
import { Markdown } from '../markdown.tsx';
import { ErrorNote, ExternalLink, NamespaceSelect, Pager, Section, usePaged, useLoad } from '../ui.tsx';

const PAGE_SIZE = 20;

type Reason = NonNullable<FeedbackQuery['reason']>;

/** The reasons readers pick under a thumbs-down, in the assistant's words. */
export const REASONS: Record<Reason, string> = {
  incorrect: 'incorrect',
  incomplete: 'incomplete',
  not_what_i_asked: 'not what I asked',
  outdated: 'outdated',
  other: 'other',
};

interface Filters {
  rating: '' | 'up' | 'down';
  reason: '' | Reason;
  namespace: '' | Namespace;
  keyId: string;
  /** A day (yyyy-mm-dd), from its start in the browser's time zone. */
  since: string;
}

const NO_FILTERS: Filters = { rating: '', reason: '', namespace: '', keyId: '', since: '' };

function query(filters: Filters): FeedbackQuery {
  const since = filters.since ? new Date(`${filters.since}T00:00`) : undefined;
  return {
    ...(filters.rating ? { rating: filters.rating } : {}),
    ...(filters.reason ? { reason: filters.reason } : {}),
    ...(filters.namespace ? { namespace: filters.namespace } : {}),
    ...(filters.keyId ? { keyId: filters.keyId } : {}),
    // An unreadable date is sent as typed, for the service to say what it takes.
    ...(since ? { since: Number.isNaN(since.getTime()) ? filters.since : since.toISOString() } : {}),
  };
}

export function FeedbackPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const keys = useLoad(() => kb.keys.list(), []);
  const { result: page, setSkip, apply: applyFilters } = usePaged(NO_FILTERS, (applied, paging) => kb.feedback.list({ ...query(applied), ...paging }), PAGE_SIZE);

  function apply(event: FormEvent) {
    event.preventDefault();
    // A new object: Filter with the same filters loads the list again.
    applyFilters({ ...filters });
  }

  const change = (next: Partial<Filters>) => setFilters((current) => ({ ...current, ...next }));

  return (
    <Section title="Readers' votes on answers">
      <p className="muted">
        What readers said of the answers they got, in the assistant and through the API: most recent first. Thumbs-down questions also lead the
        knowledge gaps.
      </p>
      <form className="row-form" onSubmit={apply}>
        <label>
          Rating
          <select name="rating" value={filters.rating} onChange={(event) => change({ rating: event.target.value as Filters['rating'] })}>
            <option value="">up and down</option>
            <option value="down">thumbs down</option>
            <option value="up">thumbs up</option>
          </select>
        </label>
        <label>
          Reason
          <select name="reason" value={filters.reason} onChange={(event) => change({ reason: event.target.value as Filters['reason'] })}>
            <option value="">any</option>
            {Object.entries(REASONS).map(([value, words]) => (
              <option key={value} value={value}>
                {words}
              </option>
            ))}
          </select>
        </label>
        <NamespaceSelect value={filters.namespace} onChange={(namespace) => change({ namespace })} all />
        <label>
          Key
          <select name="keyId" value={filters.keyId} onChange={(event) => change({ keyId: event.target.value })}>
            <option value="">any</option>
            {keys.data?.keys.map((key) => (
              <option key={key.id} value={key.id}>
                {key.label} ({key.kind}
                {key.revokedAt ? ', revoked' : ''})
              </option>
            ))}
          </select>
        </label>
        <label>
          Since
          <input type="date" name="since" value={filters.since} onChange={(event) => change({ since: event.target.value })} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={page.error ?? keys.error} />
      {page.data && page.data.feedback.length === 0 && <p className="muted">No votes match.</p>}
      {page.data && page.data.feedback.length > 0 && (
        <ol className="feedback">
          {page.data.feedback.map((entry) => (
            <Vote key={entry.messageId} entry={entry} />
          ))}
        </ol>
      )}
      {page.data && <Pager total={page.data.total} take={page.data.take} skip={page.data.skip} onPage={setSkip} />}
      {page.loading && !page.data && <p className="muted">Loading…</p>}
    </Section>
  );
}

function Vote({ entry }: { entry: FeedbackList['feedback'][number] }) {
  const down = entry.rating === 'down';
  return (
    <li className={`vote vote-${entry.rating}`} data-message-id={entry.messageId}>
      <p className="vote-head">
        <span className={`badge ${down ? 'revoked' : 'ok'}`}>{down ? 'Thumbs down' : 'Thumbs up'}</span>
        {entry.reasons.map((reason) => (
          <span key={reason} className="badge reason">
            {REASONS[reason as Reason] ?? reason}
          </span>
        ))}
        <span className="muted small">
          {formatDate(entry.updatedAt)} · {entry.keyLabel ?? 'admin session'} · {entry.namespaces.length > 0 ? entry.namespaces.join(', ') : 'all namespaces'}
        </span>
      </p>
      {entry.note && (
        <blockquote className="note">
          <span className="who">Note</span>
          <p className="plain">{entry.note}</p>
        </blockquote>
      )}
      <div className="question">
        <span className="who">Question</span>
        <p className="plain">{entry.question}</p>
      </div>
      <div className="answer">
        <span className="who">Answer{entry.interrupted ? ' · interrupted' : ''}</span>
        <Markdown text={entry.answer} />
        {entry.sources.length > 0 && (
          <>
            <span className="who">Sources</span>
            <ol className="sources">
              {entry.sources.map((source) => (
                <li key={source.documentId}>
                  {source.url ? <ExternalLink href={source.anchor ? `${source.url}#${source.anchor}` : source.url}>{source.title}</ExternalLink> : source.title}{' '}
                  <span className="muted small">{source.namespace}</span>
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
      <p className="muted small">
        Conversation <code>{entry.conversationId}</code>
      </p>
    </li>
  );
}
