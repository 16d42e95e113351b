import type { CreatedKey } from '@kb/sdk';
import { useEffect, useRef, useState, type FormEvent, type MouseEvent } from 'react';
import { formatDate, kb } from '../api.ts';
import type { SubRoute } from '../app.tsx';
import { ConfirmButton, CopyButton, ErrorNote, Pager, Section, useAction, useLoad } from '../ui.tsx';
import { KeyDetail, markCreated } from './key-detail.tsx';
import { checkFields, createInput, emptyFields, focusFirstProblem, KeySettings, KindBadges, Limits, Scope, type FieldErrors, type KeyFields } from './key-form.tsx';

/** Keys shown at a time (the API answers them all). */
const PAGE_SIZE = 25;

export function KeysPage({ sub, navigate }: SubRoute) {
  if (sub) return <KeyDetail id={sub} onBack={() => navigate('')} />;
  return <KeyList onOpen={navigate} />;
}

function KeyList({ onOpen }: { onOpen(id: string): void }) {
  const keys = useLoad(() => kb.keys.list(), []);
  const [created, setCreated] = useState<CreatedKey>();
  const [skip, setSkip] = useState(0);
  const revoke = useAction();

  return (
    <>
      <CreateKey
        onCreated={(key) => {
          if (key.kind === 'publishable') {
            // Not a secret: its page shows it, with the snippet to copy and a preview.
            markCreated(key.id);
            onOpen(key.id);
            return;
          }
          setCreated(key);
          setSkip(0);
          keys.reload();
        }}
      />
      {created && <NewSecret created={created} onDismiss={() => setCreated(undefined)} />}
      <Section title="API keys">
        <ErrorNote error={keys.error ?? revoke.error} />
        {keys.data && keys.data.keys.length === 0 && <p className="muted">No keys yet.</p>}
        {keys.data && keys.data.keys.length > 0 && (
          <div className="table-wrap">
            <table className="keys">
              <thead>
                <tr>
                  <th>Label</th>
                  <th>Kind</th>
                  <th>Key</th>
                  <th>Scope</th>
                  <th>Limits</th>
                  <th>Requests</th>
                  <th>Last used</th>
                  <th>State</th>
                  <th>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.slice(skip, skip + PAGE_SIZE).map((key) => (
                  <tr key={key.id} className={key.revokedAt ? 'revoked' : undefined} data-key-id={key.id}>
                    <td data-label="Label">
                      <KeyLink keyId={key.id} onOpen={onOpen}>
                        {key.label}
                      </KeyLink>
                    </td>
                    <td data-label="Kind">
                      <KindBadges apiKey={key} />
                    </td>
                    <td data-label="Key" className="break">
                      {key.kind === 'publishable' && key.key ? <code className="whole-key">{key.key}</code> : <code>{key.keyPrefix}…</code>}
                    </td>
                    <td data-label="Scope" className="break">
                      <Scope apiKey={key} />
                    </td>
                    <td data-label="Limits">
                      <Limits apiKey={key} />
                    </td>
                    <td data-label="Requests">{key.requestCount.toLocaleString()}</td>
                    <td data-label="Last used">{formatDate(key.lastUsedAt)}</td>
                    <td data-label="State">
                      {key.revokedAt ? <span className="badge revoked">revoked {formatDate(key.revokedAt)}</span> : <span className="badge ok">active</span>}
                    </td>
                    <td className="actions">
                      {!key.revokedAt && (
                        <div className="row-actions">
                          <KeyLink keyId={key.id} onOpen={onOpen} className="button" label={`Edit ${key.label}`}>
                            Edit
                          </KeyLink>
                          <ConfirmButton
                            label="Revoke"
                            question={`Revoke "${key.label}"? Apps using it are refused at once.`}
                            confirmLabel="Yes, revoke"
                            disabled={revoke.busy}
                            onConfirm={() => void revoke.run(() => kb.keys.revoke(key.id)).then(() => keys.reload())}
                          />
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {keys.data && keys.data.keys.length > 0 && <Pager total={keys.data.keys.length} take={PAGE_SIZE} skip={skip} onPage={setSkip} />}
        {keys.loading && !keys.data && <p className="muted">Loading…</p>}
      </Section>
    </>
  );
}

/** A link to a key's own page (/admin/keys/<id>): a real address, opened in place. */
function KeyLink({ keyId, onOpen, children, className, label }: { keyId: string; onOpen(id: string): void; children: string; className?: string; label?: string }) {
  return (
    <a
      href={`/admin/keys/${encodeURIComponent(keyId)}`}
      className={className}
      aria-label={label}
      onClick={(event: MouseEvent) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey) return;
        event.preventDefault();
        onOpen(keyId);
      }}
    >
      {children}
    </a>
  );
}

function CreateKey({ onCreated }: { onCreated(key: CreatedKey): void }) {
  const [fields, setFields] = useState<KeyFields>(emptyFields);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [checks, setChecks] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  const action = useAction();
  const publishable = fields.kind === 'publishable';

  useEffect(() => {
    if (checks > 0) focusFirstProblem(form.current);
  }, [checks]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const problems = checkFields(fields);
    setErrors(problems);
    action.clear();
    if (Object.keys(problems).length > 0) {
      setChecks((n) => n + 1);
      return;
    }
    const key = await action.run(() => kb.keys.create(createInput(fields)));
    if (key) {
      setFields(emptyFields());
      onCreated(key);
    }
  }

  const change = (next: Partial<KeyFields>) => setFields((current) => ({ ...current, ...next }));

  return (
    <Section title="Create a key">
      <form ref={form} className="key-form" noValidate onSubmit={(event) => void submit(event)}>
        <fieldset className="checks kind">
          <legend>Kind</legend>
          <label className="check">
            <input type="radio" name="kind" value="secret" checked={!publishable} onChange={() => change({ kind: 'secret' })} />
            Secret: for servers and scripts, kept secret
          </label>
          <label className="check">
            <input type="radio" name="kind" value="publishable" checked={publishable} onChange={() => change({ kind: 'publishable', admin: false })} />
            Publishable: for web pages (the assistant), bound to sites and namespaces
          </label>
        </fieldset>
        <KeySettings fields={fields} errors={errors} onChange={change} />
        {!publishable && (
          <label className="check">
            <input type="checkbox" name="admin" checked={fields.admin} onChange={(event) => change({ admin: event.target.checked })} />
            Admin (may manage keys, documents and jobs)
          </label>
        )}
        <div>
          <button type="submit" className="primary" disabled={action.busy}>
            Create key
          </button>
        </div>
      </form>
      {Object.keys(errors).length > 0 && (
        <p className="error" role="alert">
          The key was not created: {Object.values(errors).join(' ')}
        </p>
      )}
      <ErrorNote error={action.error} />
    </Section>
  );
}

function NewSecret({ created, onDismiss }: { created: CreatedKey; onDismiss(): void }) {
  return (
    <section className="card secret" role="region" aria-label="New key secret">
      <h2>Key "{created.label}" created</h2>
      <p className="warning">
        <strong>Copy the secret now.</strong> This is the only time it is shown: the service keeps only its hash, so it cannot be shown
        again. If it is lost, revoke the key and create another.
      </p>
      <CopyButton text={created.key} fieldLabel="Secret" />
      <button type="button" onClick={onDismiss}>
        I have stored it
      </button>
    </section>
  );
}
