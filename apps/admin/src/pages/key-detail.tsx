import { useEffect, useRef, useState, type FormEvent } from 'react';
import { formatDate, kb } from '../api.ts';
import { ConfirmButton, CopyButton, ErrorNote, Section, useAction, useLoad } from '../ui.tsx';
import { checkFields, fieldsOf, focusFirstProblem, KeySettings, KindBadges, Limits, Scope, updateInput, type ApiKey, type FieldErrors, type KeyFields } from './key-form.tsx';

/** Where the server serves the assistant's script (apps/server/src/widget-route.ts). */
const WIDGET_PATH = '/widget/v1/kb-assistant.js';

/** The key just created, announced once on its page. */
let justCreated: string | undefined;

export function markCreated(id: string): void {
  justCreated = id;
}

/** The one line a documentation page adds to embed the assistant with this key. */
export function embedSnippet(key: string): string {
  return `<script src="${window.location.origin}${WIDGET_PATH}" data-key="${key}" defer></script>`;
}

/** A key's own page (/admin/keys/<id>): what it is, its settings to change, and for a publishable key the snippet and a preview. */
export function KeyDetail({ id, onBack }: { id: string; onBack(): void }) {
  // The API lists keys; there are few of them.
  const keys = useLoad(() => kb.keys.list(), []);
  const [created] = useState(() => {
    const announce = justCreated === id;
    justCreated = undefined;
    return announce;
  });
  const revoke = useAction();
  const key = keys.data?.keys.find((candidate) => candidate.id === id);

  return (
    <>
      <p>
        <button type="button" onClick={onBack}>
          ← All keys
        </button>
      </p>
      <ErrorNote error={keys.error} />
      {keys.loading && !keys.data && <p className="muted">Loading…</p>}
      {keys.data && !key && <p className="error">There is no key with the id {id}: it may have been listed by another server's store, or the address is wrong.</p>}
      {key && (
        <>
          {created && (
            <p className="success" role="status">
              Key "{key.label}" created. Add the snippet below to your pages.
            </p>
          )}
          <Section
            title={key.label}
            actions={
              !key.revokedAt && (
                <ConfirmButton
                  label="Revoke"
                  question={`Revoke "${key.label}"? Apps and pages using it are refused at once.`}
                  confirmLabel="Yes, revoke"
                  disabled={revoke.busy}
                  onConfirm={() => void revoke.run(() => kb.keys.revoke(key.id)).then(() => keys.reload())}
                />
              )
            }
          >
            <ErrorNote error={revoke.error} />
            <dl className="facts">
              <dt>Kind</dt>
              <dd>
                <KindBadges apiKey={key} />
              </dd>
              <dt>Key</dt>
              <dd className="break">{key.kind === 'publishable' && key.key ? <code className="whole-key">{key.key}</code> : <code>{key.keyPrefix}…</code>}</dd>
              <dt>Scope</dt>
              <dd className="break">
                <Scope apiKey={key} />
              </dd>
              <dt>Limits</dt>
              <dd>
                <Limits apiKey={key} />
              </dd>
              <dt>Requests</dt>
              <dd>{key.requestCount.toLocaleString()}</dd>
              <dt>Last used</dt>
              <dd>{formatDate(key.lastUsedAt)}</dd>
              <dt>Created</dt>
              <dd>{formatDate(key.createdAt)}</dd>
              <dt>State</dt>
              <dd>{key.revokedAt ? <span className="badge revoked">revoked {formatDate(key.revokedAt)}</span> : <span className="badge ok">active</span>}</dd>
            </dl>
          </Section>
          {key.kind === 'publishable' && key.key && !key.revokedAt && <Embed apiKey={key.key} />}
          {!key.revokedAt && <EditKey apiKey={key} onSaved={keys.reload} />}
        </>
      )}
    </>
  );
}

function Embed({ apiKey }: { apiKey: string }) {
  return (
    <div className="grid-2">
      <Section title="Embed the assistant">
        <p>
          Add this line to every page of your documentation (before <code>&lt;/body&gt;</code>). A page with a Content-Security-Policy lists{' '}
          <code>{window.location.origin}</code> in <code>script-src</code> and <code>connect-src</code>.
        </p>
        <CopyButton text={embedSnippet(apiKey)} fieldLabel="Embed snippet" copyLabel="Copy snippet" multiline />
        <p className="muted small">
          Its attributes (title, welcome text, example questions, colours, theme, position, shortcut, namespaces, history) are described in
          the service's docs/assistant.md.
        </p>
      </Section>
      <Section title="Live preview">
        <AssistantPreview apiKey={apiKey} />
      </Section>
    </div>
  );
}

/**
 * The assistant itself, running in the console with this key: the server's own pages may use any
 * publishable key. The script is the one pages embed, loaded once; the element is placed here
 * with its inline button, no shortcut (the console's keys stay the console's) and no history.
 */
function AssistantPreview({ apiKey }: { apiKey: string }) {
  const slot = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>(() => (customElements.get('kb-assistant') ? 'ready' : 'loading'));

  useEffect(() => {
    if (state !== 'loading') return;
    let script = document.querySelector<HTMLScriptElement>(`script[src="${WIDGET_PATH}"]`);
    if (!script) {
      script = document.createElement('script');
      script.src = WIDGET_PATH;
      script.async = true;
      document.head.append(script);
    }
    const failed = () => setState('failed');
    script.addEventListener('error', failed);
    let live = true;
    void customElements.whenDefined('kb-assistant').then(() => live && setState('ready'));
    return () => {
      live = false;
      script.removeEventListener('error', failed);
    };
  }, [state]);

  useEffect(() => {
    if (state !== 'ready' || !slot.current) return;
    const element = document.createElement('kb-assistant');
    // `key` is an attribute React keeps for itself: the element is made here, not in JSX.
    const attributes = { key: apiKey, server: window.location.origin, launcher: 'inline', label: 'Try the assistant', heading: 'Ask the docs (preview)', shortcut: 'none', history: 'off' };
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    const host = slot.current;
    host.append(element);
    return () => element.remove();
  }, [state, apiKey]);

  return (
    <>
      <p className="muted">The assistant as your pages will show it, answering with this key's namespaces and limits (its questions count against them).</p>
      {state === 'failed' && (
        <p className="error" role="alert">
          The assistant's script could not be loaded from {WIDGET_PATH}: build it with <code>pnpm build</code>.
        </p>
      )}
      {state === 'loading' && <p className="muted">Loading the assistant…</p>}
      <div ref={slot} className="preview-slot" data-state={state} />
      <p className="small">
        <a href={`/?key=${encodeURIComponent(apiKey)}`} target="_blank" rel="noopener noreferrer">
          Open the preview page
        </a>{' '}
        <span className="muted">(the server's home page with the floating button and Ctrl+I, in a new tab)</span>
      </p>
    </>
  );
}

function EditKey({ apiKey, onSaved }: { apiKey: ApiKey; onSaved(): void }) {
  const [fields, setFields] = useState<KeyFields>(() => fieldsOf(apiKey));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [checks, setChecks] = useState(0);
  const [saved, setSaved] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const action = useAction();

  useEffect(() => {
    if (checks > 0) focusFirstProblem(form.current);
  }, [checks]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setSaved(false);
    const problems = checkFields(fields);
    setErrors(problems);
    action.clear();
    if (Object.keys(problems).length > 0) {
      setChecks((n) => n + 1);
      return;
    }
    const updated = await action.run(() => kb.keys.update(apiKey.id, updateInput(fields)));
    if (updated) {
      setFields(fieldsOf(updated));
      setSaved(true);
      onSaved();
    }
  }

  return (
    <Section title="Change the key">
      <form ref={form} className="key-form" noValidate onSubmit={(event) => void submit(event)}>
        <KeySettings
          fields={fields}
          errors={errors}
          onChange={(change) => {
            setSaved(false);
            setFields((current) => ({ ...current, ...change }));
          }}
        />
        <div>
          <button type="submit" className="primary" disabled={action.busy}>
            Save changes
          </button>
        </div>
      </form>
      {Object.keys(errors).length > 0 && (
        <p className="error" role="alert">
          Nothing was saved: {Object.values(errors).join(' ')}
        </p>
      )}
      <ErrorNote error={action.error} />
      <p role="status" className="success">
        {saved && 'Saved. The key works with these settings from its next request.'}
      </p>
    </Section>
  );
}
