import { useState, type FormEvent } from 'react';
import { formatDate, kb } from '../api.ts';
import { ErrorNote, Pager, Section, usePaged } from '../ui.tsx';

const PAGE_SIZE = 20;

function score(value: number | null): string {
  return value === null ? 'nothing found' : value.toFixed(3);
}

export function GapsPage() {
  const [kind, setKind] = useState<'' | 'search' | 'chat'>('');
  const [maxScore, setMaxScore] = useState('');
  const {
    result: gaps,
    setSkip,
    apply: applyFilters,
  } = usePaged(
    { kind: '' as '' | 'search' | 'chat', maxScore: '' },
    (filters, paging) =>
      kb.insights.gaps({
        ...(filters.kind ? { kind: filters.kind } : {}),
        ...(filters.maxScore ? { maxScore: Number(filters.maxScore) } : {}),
        ...paging,
      }),
    PAGE_SIZE,
  );

  function apply(event: FormEvent) {
    event.preventDefault();
    applyFilters({ kind, maxScore: maxScore.trim() });
  }

  return (
    <Section title="Voted-down and weakest recent queries">
      <p className="muted">
        Questions readers voted down (in the assistant or through the API) come first, beside the searches and chat questions whose best match
        scored lowest: topics the documentation may be missing or gets wrong. The votes themselves, with their reasons and notes, are under
        Feedback.
      </p>
      <form className="row-form" onSubmit={apply}>
        <label>
          Kind
          <select name="kind" value={kind} onChange={(event) => setKind(event.target.value as '' | 'search' | 'chat')}>
            <option value="">search and chat</option>
            <option value="search">search</option>
            <option value="chat">chat</option>
          </select>
        </label>
        <label>
          Mean score at most
          <input name="maxScore" inputMode="decimal" value={maxScore} onChange={(event) => setMaxScore(event.target.value)} placeholder="any" className="narrow" />
        </label>
        <button type="submit">Filter</button>
      </form>
      <ErrorNote error={gaps.error} />
      {gaps.data && gaps.data.gaps.length === 0 && <p className="muted">No weak or voted-down queries recorded.</p>}
      {gaps.data && gaps.data.gaps.length > 0 && (
        <div className="table-wrap">
          <table className="gaps">
            <thead>
              <tr>
                <th>Query</th>
                <th>Voted down</th>
                <th>Asked</th>
                <th>Best score</th>
                <th>Mean score</th>
                <th>Where</th>
                <th>Last asked</th>
              </tr>
            </thead>
            <tbody>
              {gaps.data.gaps.map((gap) => (
                <tr key={`${gap.query}-${gap.lastAskedAt}`} className={gap.thumbsDown > 0 ? 'voted-down' : undefined}>
                  <td data-label="Query" className="break">
                    {gap.query}
                  </td>
                  <td data-label="Voted down">{gap.thumbsDown > 0 ? <span className="badge revoked">{gap.thumbsDown === 1 ? '1 thumbs down' : `${gap.thumbsDown} thumbs down`}</span> : <span className="muted">—</span>}</td>
                  <td data-label="Asked">{gap.count}×</td>
                  <td data-label="Best score">{score(gap.bestScore)}</td>
                  <td data-label="Mean score">{score(gap.meanScore)}</td>
                  <td data-label="Where">
                    {gap.kinds.join(', ')} · {gap.namespaces.length > 0 ? gap.namespaces.join(', ') : 'all'}
                  </td>
                  <td data-label="Last asked">{formatDate(gap.lastAskedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {gaps.data && <Pager total={gaps.data.total} take={gaps.data.take} skip={gaps.data.skip} onPage={setSkip} />}
    </Section>
  );
}
