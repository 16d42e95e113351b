import type { Job } from '@kb/sdk';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { formatDate, kb, type Namespace } from '../api.ts';
import { ErrorNote, NamespaceSelect, Pager, Section, useAction, useLoad } from '../ui.tsx';

/** How often the jobs list is fetched again while a job is pending or running. */
const JOBS_POLL_MS = 1_500;
const JOBS_PAGE = 10;

function Outcome({ children }: { children: ReactNode }) {
  return (
    <p className="success" role="status">
      {children}
    </p>
  );
}

export function IngestPage() {
  const [jobsRound, setJobsRound] = useState(0);
  return (
    <>
      <div className="grid-2">
        <MarkdownForm />
        <div>
          <UrlForm />
          <OpenApiForm />
          <WikiForm onStarted={() => setJobsRound((n) => n + 1)} />
        </div>
      </div>
      <Jobs round={jobsRound} />
    </>
  );
}

function MarkdownForm() {
  const [title, setTitle] = useState('');
  const [slug, setSlug] = useState('');
  const [namespace, setNamespace] = useState<Namespace>('user_docs');
  const [content, setContent] = useState('');
  const action = useAction();
  const [result, setResult] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(undefined);
    const done = await action.run(() => kb.ingest.markdown({ title, content, namespace, ...(slug.trim() ? { slug: slug.trim() } : {}) }));
    if (done) setResult(done.skipped ? `Unchanged: "${title}" was already stored with this content.` : `Stored "${title}" (document ${done.documentId}).`);
  }

  return (
    <Section title="Paste Markdown">
      <form className="stack" onSubmit={(event) => void submit(event)}>
        <label>
          Title
          <input name="title" required value={title} onChange={(event) => setTitle(event.target.value)} />
        </label>
        <div className="row-form">
          <NamespaceSelect value={namespace} onChange={setNamespace} />
          <label>
            Slug (optional)
            <input name="slug" value={slug} onChange={(event) => setSlug(event.target.value)} placeholder="defaults to the title" />
          </label>
        </div>
        <label>
          Markdown
          <textarea name="content" rows={12} value={content} onChange={(event) => setContent(event.target.value)} placeholder={'# Heading\n\nText…'} />
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Ingesting…' : 'Ingest Markdown'}
        </button>
      </form>
      <ErrorNote error={action.error} />
      {result && <Outcome>{result}</Outcome>}
    </Section>
  );
}

function UrlForm() {
  const [url, setUrl] = useState('');
  const [namespace, setNamespace] = useState<Namespace>('user_docs');
  const action = useAction();
  const [result, setResult] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(undefined);
    const done = await action.run(() => kb.ingest.url({ url, namespace }));
    if (done) setResult(done.skipped ? 'Unchanged since the last fetch.' : `Stored (document ${done.documentId}).`);
  }

  return (
    <Section title="Ingest a page by URL">
      <form className="row-form" onSubmit={(event) => void submit(event)}>
        <label className="grow">
          URL
          <input name="url" type="url" required value={url} onChange={(event) => setUrl(event.target.value)} placeholder="https://docs.example.com/page" />
        </label>
        <NamespaceSelect value={namespace} onChange={setNamespace} />
        <button type="submit" className="primary" disabled={action.busy}>
          {action.busy ? 'Fetching…' : 'Ingest URL'}
        </button>
      </form>
      <ErrorNote error={action.error} />
      {result && <Outcome>{result}</Outcome>}
    </Section>
  );
}

function OpenApiForm() {
  const [file, setFile] = useState<File>();
  const [namespace, setNamespace] = useState<Namespace>('api_endpoints');
  const action = useAction();
  const [result, setResult] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!file) return;
    setResult(undefined);
    const done = await action.run(async () => {
      const text = await file.text();
      const format = /\.json$/i.test(file.name) ? 'json' : /\.ya?ml$/i.test(file.name) ? 'yaml' : undefined;
      return kb.ingest.openapi(text, { namespace, ...(format ? { format } : {}) });
    });
    if (done) setResult(`${file.name}: ${done.total} ${done.total === 1 ? 'operation' : 'operations'}, ${done.upserted} stored, ${done.unchanged} unchanged.`);
  }

  return (
    <Section title="Upload an OpenAPI spec">
      <p className="muted small">One document per operation that has an operationId.</p>
      <form className="row-form" onSubmit={(event) => void submit(event)}>
        <label className="grow">
          Spec file (JSON or YAML)
          <input name="spec" type="file" accept=".json,.yaml,.yml,application/json,application/yaml" required onChange={(event) => setFile(event.target.files?.[0])} />
        </label>
        <NamespaceSelect value={namespace} onChange={setNamespace} />
        <button type="submit" className="primary" disabled={action.busy || !file}>
          {action.busy ? 'Ingesting…' : 'Ingest spec'}
        </button>
      </form>
      <ErrorNote error={action.error} />
      {result && <Outcome>{result}</Outcome>}
    </Section>
  );
}

function WikiForm({ onStarted }: { onStarted(): void }) {
  const [spaceKey, setSpaceKey] = useState('');
  const [namespace, setNamespace] = useState<Namespace>('wiki');
  const action = useAction();
  const [result, setResult] = useState<string>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setResult(undefined);
    const done = await action.run(() => kb.ingest.wiki({ spaceKey: spaceKey.trim(), namespace }));
    if (done) {
      setResult(`Import of space ${spaceKey.trim()} queued (job ${done.jobId}): its progress is in the jobs list below.`);
      onStarted();
    }
  }

  return (
    <Section title="Import a wiki space">
      <form className="row-form" onSubmit={(event) => void submit(event)}>
        <label className="grow">
          Space key
          <input name="spaceKey" required value={spaceKey} onChange={(event) => setSpaceKey(event.target.value)} placeholder="DOCS" />
        </label>
        <NamespaceSelect value={namespace} onChange={setNamespace} />
        <button type="submit" className="primary" disabled={action.busy}>
          Start import
        </button>
      </form>
      <ErrorNote error={action.error} />
      {result && <Outcome>{result}</Outcome>}
    </Section>
  );
}

function JobProgress({ job }: { job: Job }) {
  const { total, done, skipped, failed } = job.progress;
  const handled = done + skipped + failed;
  return (
    <div className="progress">
      <progress max={Math.max(total, 1)} value={job.status === 'done' ? Math.max(total, 1) : handled} aria-label={`Job ${job.id} progress`} />
      <span>
        {handled}/{total} pages: {done} written, {skipped} unchanged, {failed} failed
      </span>
    </div>
  );
}

function Jobs({ round }: { round: number }) {
  const [tick, setTick] = useState(0);
  const [skip, setSkip] = useState(0);
  const jobs = useLoad(() => kb.ingest.jobs(), [round, tick]);
  const active = jobs.data?.jobs.some((job) => job.status === 'pending' || job.status === 'running') ?? false;

  useEffect(() => {
    if (!active) return;
    // After each answer, a failed one included: a refresh that fails is tried again, not the end of the updates.
    const timer = setTimeout(() => setTick((n) => n + 1), JOBS_POLL_MS);
    return () => clearTimeout(timer);
  }, [active, jobs.data, jobs.error]);

  const list = jobs.data?.jobs ?? [];
  return (
    <Section
      title="Jobs"
      actions={
        <button type="button" onClick={() => setTick((n) => n + 1)}>
          Refresh
        </button>
      }
    >
      <p className="muted">{active ? 'Updating while a job runs…' : 'The last 100 ingestion jobs, newest first.'}</p>
      <ErrorNote error={jobs.error} />
      {jobs.data && list.length === 0 && <p className="muted">No jobs yet: a wiki import makes one.</p>}
      {list.length > 0 && (
        <div className="table-wrap">
          <table className="jobs">
            <thead>
              <tr>
                <th>Job</th>
                <th>Status</th>
                <th>Progress</th>
                <th>Started</th>
                <th>Finished</th>
              </tr>
            </thead>
            <tbody>
              {list.slice(skip, skip + JOBS_PAGE).map((job) => (
                <tr key={job.id} data-job-id={job.id}>
                  <td data-label="Job">
                    {job.type} {typeof job.payload.spaceKey === 'string' ? job.payload.spaceKey : ''}
                    {typeof job.payload.namespace === 'string' ? ` → ${job.payload.namespace}` : ''}
                    <div className="muted small">
                      <code>{job.id.slice(0, 8)}</code> · attempt {job.attempts}
                    </div>
                  </td>
                  <td data-label="Status">
                    <span className={`badge status-${job.status}`}>{job.status}</span>
                    {job.error && (
                      <p className="error small" role="alert">
                        {job.error}
                      </p>
                    )}
                  </td>
                  <td data-label="Progress">
                    <JobProgress job={job} />
                  </td>
                  <td data-label="Started">{formatDate(job.startedAt ?? job.createdAt)}</td>
                  <td data-label="Finished">{formatDate(job.completedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.length > 0 && <Pager total={list.length} take={JOBS_PAGE} skip={skip} onPage={setSkip} />}
    </Section>
  );
}
