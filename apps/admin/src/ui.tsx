import { Component, useCallback, useEffect, useRef, useState, type ErrorInfo, type ReactNode } from 'react';
import { describeError, NAMESPACES, type Namespace } from './api.ts';

/** A failed call, in the service's words. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p className="error" role="alert">
      {describeError(error)}
    </p>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * The result of `load`, run again whenever `deps` change or `reload()` is called. A slower
 * earlier answer never replaces a newer one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const id = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (id !== latest.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (id !== latest.current) return;
        setError(failure);
        setLoading(false);
      },
    );
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { data, error, loading, reload };
}

/** A list the service pages, filtered from a form: `apply` sets new filters and goes back to the first page. */
export function usePaged<F, T>(
  initial: F,
  load: (filters: F, page: { limit: number; offset: number }) => Promise<T>,
  pageSize: number,
): { result: Loaded<T>; setSkip(skip: number): void; apply(filters: F): void } {
  const [filters, setFilters] = useState(initial);
  const [skip, setSkip] = useState(0);
  const result = useLoad(() => load(filters, { limit: pageSize, offset: skip }), [filters, skip]);
  const apply = useCallback((next: F) => {
    setSkip(0);
    setFilters(next);
  }, []);
  return { result, setSkip, apply };
}

/** An action's state: running, its failure, and a runner that records both. */
export function useAction(): { busy: boolean; error: unknown; run<T>(action: () => Promise<T>): Promise<T | undefined>; clear(): void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = useCallback(async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (failure) {
      setError(failure);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: useCallback(() => setError(undefined), []) };
}

/** Previous / next over a list of `total` items, `take` at a time from `skip`. */
export function Pager({ total, take, skip, onPage }: { total: number; take: number; skip: number; onPage(skip: number): void }) {
  if (total <= take && skip === 0) return <p className="muted">{total === 1 ? '1 item' : `${total} items`}</p>;
  const last = Math.min(skip + take, total);
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={skip === 0} onClick={() => onPage(Math.max(0, skip - take))}>
        ← Previous
      </button>
      <span>
        {total === 0 ? 0 : skip + 1}–{last} of {total}
      </span>
      <button type="button" disabled={last >= total} onClick={() => onPage(skip + take)}>
        Next →
      </button>
    </nav>
  );
}

/** A button that asks before it acts: the question and the two answers appear in its place. */
export function ConfirmButton({ label, question, confirmLabel, onConfirm, disabled }: { label: string; question: string; confirmLabel: string; onConfirm(): void; disabled?: boolean }) {
  const [asking, setAsking] = useState(false);
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span>{question}</span>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/**
 * Text to copy (a new secret, the embed snippet) in a read-only field, with a Copy button. Without
 * clipboard access (a page on plain http other than localhost) the text is selected for the user.
 */
export function CopyButton({ text, fieldLabel, copyLabel = 'Copy', multiline = false }: { text: string; fieldLabel: string; copyLabel?: string; multiline?: boolean }) {
  const field = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      field.current?.select();
      setCopied(document.execCommand('copy') ? 'yes' : 'no');
    }
  }

  const props = { ref: field, readOnly: true, value: text, 'aria-label': fieldLabel, spellCheck: false, onFocus: (event: { target: { select(): void } }) => event.target.select() };
  return (
    <>
      <div className="secret-row">
        {multiline ? <textarea {...props} rows={4} className="copy-text" /> : <input {...props} />}
        <button type="button" className="primary" onClick={() => void copy()}>
          {copyLabel}
        </button>
      </div>
      <p role="status" className="small">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'no' && `The browser refused the clipboard: the ${fieldLabel.toLowerCase()} is selected, copy it with Ctrl+C.`}
      </p>
    </>
  );
}

/** A namespace picker; `all` adds an empty choice meaning every namespace (a filter). */
export function NamespaceSelect<V extends Namespace | ''>({ value, onChange, all = false }: { value: V; onChange(value: NoInfer<V>): void; all?: boolean }) {
  return (
    <label>
      Namespace
      <select name="namespace" value={value} onChange={(event) => onChange(event.target.value as V)}>
        {all && <option value="">all</option>}
        {NAMESPACES.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
    </label>
  );
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card">
      <header className="card-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** An external link that leaks nothing of the console (no referrer, no opener). */
export function ExternalLink({ href, children }: { href: string; children: ReactNode }) {
  if (!/^https?:\/\//i.test(href)) return <>{children}</>;
  return (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {children}
    </a>
  );
}

/**
 * A section that failed to render (an answer of a shape it did not expect, a bug) shows why, in
 * place, instead of React unmounting the whole page: the menu stays, and another section (or a
 * reload) works.
 */
export class SectionBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };

  static getDerivedStateFromError(error: unknown): { error: unknown } {
    return { error };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error('The section failed to render', error, info.componentStack);
  }

  override render(): ReactNode {
    if (this.state.error === undefined) return this.props.children;
    return (
      <div className="error" role="alert">
        <p>This section could not be shown: {describeError(this.state.error)}</p>
        <p>Reload the page to try again; the other sections still work.</p>
      </div>
    );
  }
}
