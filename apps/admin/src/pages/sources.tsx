import type { Source, SourceFailure } from '@kb/sdk';
import { useEffect, useState, type FormEvent } from 'react';
import { formatDate, kb, type Namespace } from '../api.ts';
import { ConfirmButton, ErrorNote, NamespaceSelect, Section, useAction, useLoad } from '../ui.tsx';

/** How often the list is fetched again while a sync is queued or running. */
const POLL_MS = 1_000;

export function SourcesPage() {
  const [round, setRound] = useState(0);
  return (
    <>
      <AddSiteForm onAdded={() => setRound((n) => n + 1)} />
      <SourceList round={round} />
    </>
  );
}

function AddSiteForm({ onAdded }: { onAdded(): void }) {
  const [kind, setKind] = useState<'website' | 'confluence'>('website');
  const [spaceKey, setSpaceKey] = useState('');
  const [url, setUrl] = useState('');
  const [sitemap, setSitemap] = useState('');
  const [namespace, setNamespace] = useState<Namespace>('user_docs');
  const [every, setEvery] = useState('1440');
  const action = useAction();
  const [result, setResult] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(undefined);
    const start = url.trim();
    const isSitemap = /\.xml$/i.test(start);
    const settings = {
      ...(start ? (isSitemap ? { sitemapUrl: start } : { startUrl: start }) : {}),
      ...(sitemap.trim() ? { sitemapUrl: sitemap.trim() } : {}),
    };
    const scheduleMinutes = every === '' ? null : Number(every);
    const key = spaceKey.trim();
    const created = await action.run(() =>
      kind === 'confluence'
        ? kb.sources.create({ kind, name: `Confluence ${key}`, namespace, settings: { spaceKey: key }, scheduleMinutes })
        : kb.sources.create({ kind, name: start ? new URL(start).host : 'website', namespace, settings, scheduleMinutes }),
    );
    if (created) {
      setResult(`Added ${created.name}: its first sync is queued; its progress is in the list below.`);
      setUrl('');
      setSitemap('');
      setSpaceKey('');
      onAdded();
    }
  }

  return (
    <Section title="Add a docs site">
      <p className="muted small">
        {kind === 'website'
          ? 'Pages (and the PDFs they link to) are found from the sitemap and by following links within the site; robots.txt is honoured.'
          : "Every page of the space, read with the server's Confluence account (WIKI_BASE_URL, WIKI_EMAIL, WIKI_API_TOKEN)."}
      </p>
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <div className="row-form">
          <label>
            Kind
            <select name="kind" value={kind} onChange={(event) => setKind(event.target.value as 'website' | 'confluence')}>
              <option value="website">Website</option>
              <option value="confluence">Confluence space</option>
            </select>
          </label>
          {kind === 'website' ? (
            <>
              <label className="grow">
                Site address
                <input name="url" type="url" required value={url} onChange={(event) => setUrl(event.target.value)} placeholder="https://docs.example.com/" />
              </label>
              <label className="grow">
                Sitemap (optional)
                <input name="sitemap" type="url" value={sitemap} onChange={(event) => setSitemap(event.target.value)} placeholder="https://docs.example.com/sitemap.xml" />
              </label>
            </>
          ) : (
            <label className="grow">
              Space key
              <input name="spaceKey" required value={spaceKey} onChange={(event) => setSpaceKey(event.target.value)} placeholder="ENG" />
            </label>
          )}
        </div>
        <div className="row-form">
          <NamespaceSelect value={namespace} onChange={setNamespace} />
          <label>
            Sync
            <select name="every" value={every} onChange={(event) => setEvery(event.target.value)}>
              <option value="">only when asked</option>
              <option value="60">every hour</option>
              <option value="360">every 6 hours</option>
              <option value="1440">every day</option>
              <option value="10080">every week</option>
            </select>
          </label>
          <button type="submit" className="primary" disabled={action.busy}>
            {action.busy ? 'Adding…' : kind === 'website' ? 'Add site' : 'Add space'}
          </button>
        </div>
      </form>
      <ErrorNote error={action.error} />
      {result && (
        <p className="success" role="status">
          {result}
        </p>
      )}
    </Section>
  );
}

function schedule(source: Source): string {
  if (source.scheduleMinutes === null) return 'only when asked';
  const minutes = source.scheduleMinutes;
  const every = minutes % 1440 === 0 ? `${minutes / 1440} d` : minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`;
  return `every ${every}${source.nextSyncAt ? `, next ${formatDate(source.nextSyncAt)}` : ''}`;
}

function SyncProgress({ source }: { source: Source }) {
  const sync = source.lastSync;
  if (!sync) return <span className="muted">never synced</span>;
  const { discovered, fetched, unchanged, updated, removed, failed } = sync.pages;
  const handled = unchanged + updated + failed;
  const running = source.status !== 'idle' && sync.finishedAt === null;
  return (
    <div className="progress">
      <progress max={Math.max(discovered, 1)} value={running ? handled : Math.max(discovered, 1)} aria-label={`${source.name} sync progress`} />
      <span>
        {handled}/{discovered} pages: {updated} updated, {unchanged} unchanged, {removed} removed, {failed} failed ({fetched} fetched)
      </span>
    </div>
  );
}

function Failures({ source }: { source: Source }) {
  const failures = useLoad(() => kb.sources.failures(source.id, { limit: 50 }), [source.id, source.lastSync?.finishedAt]);
  const list: SourceFailure[] = failures.data?.failures ?? [];
  return (
    <div>
      <ErrorNote error={failures.error} />
      {list.length > 0 && (
        <ul className="failures">
          {list.map((failure) => (
            <li key={failure.url}>
              <code>{failure.url}</code>: {failure.reason}
            </li>
          ))}
        </ul>
      )}
      {failures.data?.nextCursor && <p className="muted small">More failures: GET /api/v1/sources/{source.id}/failures.</p>}
    </div>
  );
}

function SourceRow({ source, onChanged }: { source: Source; onChanged(): void }) {
  const action = useAction();
  const [showFailures, setShowFailures] = useState(false);
  const sync = source.lastSync;
  const state = source.status === 'idle' ? (sync ? sync.status : 'idle') : source.status;
  const site = source.kind === 'confluence' ? `Confluence space ${String(source.settings['spaceKey'] ?? '')}` : String(source.settings['startUrl'] ?? source.settings['sitemapUrl'] ?? '');
  return (
    <tr data-source-id={source.id}>
      <td>
        <strong>{source.name}</strong>
        <div className="muted small">
          {site} → {source.namespace}
        </div>
      </td>
      <td>
        <span className={`badge status-${state === "syncing" ? "running" : state === "queued" ? "pending" : state}`}>{state}</span>
        {sync?.error && <div className="small">{sync.error}</div>}
      </td>
      <td>
        <SyncProgress source={source} />
        {sync && sync.pages.failed > 0 && (
          <button type="button" className="link" onClick={() => setShowFailures((shown) => !shown)}>
            {showFailures ? 'Hide failures' : `Show ${sync.pages.failed} ${sync.pages.failed === 1 ? 'failure' : 'failures'}`}
          </button>
        )}
        {showFailures && <Failures source={source} />}
      </td>
      <td>
        {sync?.finishedAt ? formatDate(sync.finishedAt) : sync ? 'running' : '—'}
        <div className="muted small">{schedule(source)}</div>
      </td>
      <td>
        <div className="row-actions">
          <button type="button" disabled={action.busy || source.status !== 'idle'} onClick={() => void action.run(() => kb.sources.sync(source.id)).then(onChanged)}>
            Sync now
          </button>
          <ConfirmButton
            label="Delete"
            question={`Delete ${source.name} and its documents?`}
            confirmLabel="Delete with its documents"
            onConfirm={() => void action.run(() => kb.sources.delete(source.id, { documents: true })).then(onChanged)}
          />
        </div>
        <ErrorNote error={action.error} />
      </td>
    </tr>
  );
}

function SourceList({ round }: { round: number }) {
  const [tick, setTick] = useState(0);
  const sources = useLoad(() => kb.sources.list({ limit: 100 }), [round, tick]);
  const list = sources.data?.sources ?? [];
  const active = list.some((source) => source.status !== 'idle');

  useEffect(() => {
    if (!active) return;
    const timer = setTimeout(() => setTick((n) => n + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [active, sources.data, sources.error]);

  return (
    <Section
      title="Sources"
      actions={
        <button type="button" onClick={() => setTick((n) => n + 1)}>
          Refresh
        </button>
      }
    >
      <p className="muted">{active ? 'Updating while a sync runs…' : 'Sites kept in sync, newest first.'}</p>
      <ErrorNote error={sources.error} />
      {sources.data && list.length === 0 && <p className="muted">No sources yet: add your docs site above.</p>}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="sources">
            <thead>
              <tr>
                <th>Site</th>
                <th>Status</th>
                <th>Last sync</th>
                <th>When</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((source) => (
                <SourceRow key={source.id} source={source} onChanged={() => setTick((n) => n + 1)} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  );
}
