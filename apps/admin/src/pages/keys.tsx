import type { CreatedKey } from '@kb/sdk';
import { useRef, useState, type FormEvent } from 'react';
import { formatDate, kb } from '../api.ts';
import { ConfirmButton, ErrorNote, Pager, Section, useAction, useLoad } from '../ui.tsx';

/** Keys shown at a time (the API answers them all). */
const PAGE_SIZE = 25;

function limit(value: number | null, unit: string): string {
  return value === null ? `unlimited ${unit}` : `${value.toLocaleString()} ${unit}`;
}

/**
 * An optional limit from a form field: empty is "no limit". Text that is not a number is sent as
 * it is, for the service to say what it takes.
 */
function optionalLimit(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : (trimmed as unknown as number);
}

export function KeysPage() {
  const keys = useLoad(() => kb.keys.list(), []);
  const [created, setCreated] = useState<CreatedKey>();
  const [skip, setSkip] = useState(0);
  const revoke = useAction();

  return (
    <>
      <CreateKey
        onCreated={(key) => {
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
                  <th>Prefix</th>
                  <th>Admin</th>
                  <th>Limits</th>
                  <th>Requests</th>
                  <th>Last used</th>
                  <th>Created</th>
                  <th>State</th>
                  <th></th>
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.slice(skip, skip + PAGE_SIZE).map((key) => (
                  <tr key={key.id} className={key.revokedAt ? 'revoked' : undefined} data-key-id={key.id}>
                    <td data-label="Label">{key.label}</td>
                    <td data-label="Prefix">
                      <code>{key.keyPrefix}…</code>
                    </td>
                    <td data-label="Admin">{key.admin ? <span className="badge admin">admin</span> : 'no'}</td>
                    <td data-label="Limits">
                      {limit(key.rateLimitRpm, '/ min')}, {limit(key.rateLimitRpd, '/ day')}
                    </td>
                    <td data-label="Requests">{key.requestCount.toLocaleString()}</td>
                    <td data-label="Last used">{formatDate(key.lastUsedAt)}</td>
                    <td data-label="Created">{formatDate(key.createdAt)}</td>
                    <td data-label="State">
                      {key.revokedAt ? <span className="badge revoked">revoked {formatDate(key.revokedAt)}</span> : <span className="badge ok">active</span>}
                    </td>
                    <td>
                      {!key.revokedAt && (
                        <ConfirmButton
                          label="Revoke"
                          question={`Revoke "${key.label}"? Apps using it are refused at once.`}
                          confirmLabel="Yes, revoke"
                          disabled={revoke.busy}
                          onConfirm={() => void revoke.run(() => kb.keys.revoke(key.id)).then(() => keys.reload())}
                        />
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

function CreateKey({ onCreated }: { onCreated(key: CreatedKey): void }) {
  const [label, setLabel] = useState('');
  const [admin, setAdmin] = useState(false);
  const [rpm, setRpm] = useState('');
  const [rpd, setRpd] = useState('');
  const action = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const key = await action.run(() => kb.keys.create({ label, admin, rateLimitRpm: optionalLimit(rpm), rateLimitRpd: optionalLimit(rpd) }));
    if (key) {
      setLabel('');
      setAdmin(false);
      setRpm('');
      setRpd('');
      onCreated(key);
    }
  }

  return (
    <Section title="Create a key">
      <form className="row-form" onSubmit={(event) => void submit(event)}>
        <label>
          Label
          <input name="label" required value={label} onChange={(event) => setLabel(event.target.value)} placeholder="docs-site" />
        </label>
        <label>
          Requests / minute
          <input name="rpm" inputMode="numeric" value={rpm} onChange={(event) => setRpm(event.target.value)} placeholder="no limit" />
        </label>
        <label>
          Requests / day
          <input name="rpd" inputMode="numeric" value={rpd} onChange={(event) => setRpd(event.target.value)} placeholder="no limit" />
        </label>
        <label className="check">
          <input type="checkbox" name="admin" checked={admin} onChange={(event) => setAdmin(event.target.checked)} />
          Admin (may manage keys, documents and jobs)
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          Create key
        </button>
      </form>
      <ErrorNote error={action.error} />
    </Section>
  );
}

function NewSecret({ created, onDismiss }: { created: CreatedKey; onDismiss(): void }) {
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'no' | undefined>();

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('yes');
    } catch {
      // No clipboard access (a page on plain http other than localhost): select it for the user.
      input.current?.select();
      setCopied(document.execCommand('copy') ? 'yes' : 'no');
    }
  }

  return (
    <section className="card secret" role="region" aria-label="New key secret">
      <h2>Key "{created.label}" created</h2>
      <p className="warning">
        <strong>Copy the secret now.</strong> This is the only time it is shown: the service keeps only its hash, so it cannot be shown
        again. If it is lost, revoke the key and create another.
      </p>
      <div className="secret-row">
        <input ref={input} readOnly value={created.key} aria-label="Secret" onFocus={(event) => event.target.select()} />
        <button type="button" className="primary" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      {copied === 'yes' && <p role="status">Copied to the clipboard.</p>}
      {copied === 'no' && <p role="status">The browser refused the clipboard: the secret is selected, copy it with Ctrl+C.</p>}
      <button type="button" onClick={onDismiss}>
        I have stored it
      </button>
    </section>
  );
}
