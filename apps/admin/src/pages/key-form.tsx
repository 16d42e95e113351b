import { MAX_ALLOWED_ORIGINS, parseOriginPattern, PUBLISHABLE_DEFAULTS } from '@kb/core/rules';
import type { CreateKeyInput, KeyList, UpdateKeyInput } from '@kb/sdk';
import { useId, type ReactNode } from 'react';
import { NAMESPACES, type Namespace } from '../api.ts';

export type ApiKey = KeyList['keys'][number];
export type KeyKind = ApiKey['kind'];

/** What the create and edit forms hold: text as typed, turned into the API's fields on submit. */
export interface KeyFields {
  label: string;
  kind: KeyKind;
  admin: boolean;
  /** Secret keys: none chosen is every namespace. Publishable keys: at least one. */
  namespaces: Namespace[];
  /** One origin a line. */
  origins: string;
  rpm: string;
  rpd: string;
  visitorRpm: string;
  visitorRpd: string;
  dailyAnswers: string;
}

/** Where a form's check found a problem, in words, by field. */
export type FieldErrors = Partial<Record<'label' | 'namespaces' | 'origins', string>>;

const limitText = (value: number | null | undefined): string => (value === null || value === undefined ? '' : String(value));

/** A new key's form: a secret key, and the documented budgets ready for a publishable one. */
export function emptyFields(): KeyFields {
  return {
    label: '',
    kind: 'secret',
    admin: false,
    namespaces: [],
    origins: '',
    rpm: '',
    rpd: '',
    visitorRpm: String(PUBLISHABLE_DEFAULTS.visitorRateLimitRpm),
    visitorRpd: String(PUBLISHABLE_DEFAULTS.visitorRateLimitRpd),
    dailyAnswers: String(PUBLISHABLE_DEFAULTS.dailyAnswerLimit),
  };
}

/** A key's form as the key is now. */
export function fieldsOf(key: ApiKey): KeyFields {
  return {
    label: key.label,
    kind: key.kind,
    admin: key.admin,
    namespaces: NAMESPACES.filter((name) => key.namespaces?.includes(name)),
    origins: (key.allowedOrigins ?? []).join('\n'),
    rpm: limitText(key.rateLimitRpm),
    rpd: limitText(key.rateLimitRpd),
    visitorRpm: limitText(key.visitorRateLimitRpm),
    visitorRpd: limitText(key.visitorRateLimitRpd),
    dailyAnswers: limitText(key.dailyAnswerLimit),
  };
}

/**
 * An optional limit from a form field: empty is "no limit". Text that is not a number is sent as
 * it is, for the service to say what it takes.
 */
export function optionalLimit(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : (trimmed as unknown as number);
}

function originLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * The form's problems, checked with the rules the service applies, so that they are shown by
 * the field at once; the service checks everything again (and its word is shown when it
 * refuses).
 */
export function checkFields(fields: KeyFields): FieldErrors {
  // In the order the form shows them.
  const errors: FieldErrors = {};
  if (fields.label.trim() === '') errors.label = 'Give the key a label, to recognise it in this list.';
  if (fields.kind === 'publishable') {
    const origins = originLines(fields.origins);
    const problems = origins.flatMap((origin) => {
      const parsed = parseOriginPattern(origin);
      return 'error' in parsed ? [parsed.error] : [];
    });
    if (origins.length === 0) errors.origins = 'List the sites that may use the key, one a line, such as https://docs.example.com.';
    else if (problems.length > 0) errors.origins = problems.join('\n');
    else if (origins.length > MAX_ALLOWED_ORIGINS) errors.origins = `A key may list at most ${MAX_ALLOWED_ORIGINS} origins.`;
    if (fields.namespaces.length === 0) errors.namespaces = 'Choose the namespaces its pages may read (at least one).';
  }
  return errors;
}

/** The fields a key of this kind is created or changed with. */
function settings(fields: KeyFields) {
  const common = {
    label: fields.label.trim(),
    rateLimitRpm: optionalLimit(fields.rpm),
    rateLimitRpd: optionalLimit(fields.rpd),
  };
  if (fields.kind === 'publishable') {
    return {
      ...common,
      namespaces: fields.namespaces,
      allowedOrigins: originLines(fields.origins),
      visitorRateLimitRpm: optionalLimit(fields.visitorRpm),
      visitorRateLimitRpd: optionalLimit(fields.visitorRpd),
      dailyAnswerLimit: optionalLimit(fields.dailyAnswers),
    };
  }
  // An admin key reaches every namespace; the service refuses a scope on one.
  return { ...common, ...(fields.admin ? {} : { namespaces: fields.namespaces.length > 0 ? fields.namespaces : null }) };
}

export function createInput(fields: KeyFields): CreateKeyInput {
  return { ...settings(fields), kind: fields.kind, ...(fields.kind === 'secret' ? { admin: fields.admin } : {}) };
}

export function updateInput(fields: KeyFields): UpdateKeyInput {
  return settings(fields);
}

/** A form's fields for one key kind (the kind and admin choice are the create form's own). */
export function KeySettings({
  fields,
  errors,
  onChange,
}: {
  fields: KeyFields;
  errors: FieldErrors;
  onChange(change: Partial<KeyFields>): void;
}) {
  const publishable = fields.kind === 'publishable';
  return (
    <>
      <Field label="Label" error={errors.label}>
        {(props) => <input {...props} name="label" value={fields.label} onChange={(event) => onChange({ label: event.target.value })} placeholder="docs-site" />}
      </Field>
      {publishable && (
        <Field
          label="Allowed origins"
          hint="One a line: https://docs.example.com, https://*.example.com for every subdomain, http://localhost:* for local development (only where listed)."
          error={errors.origins}
        >
          {(props) => (
            <textarea
              {...props}
              name="origins"
              rows={3}
              spellCheck={false}
              autoCapitalize="off"
              value={fields.origins}
              onChange={(event) => onChange({ origins: event.target.value })}
              placeholder="https://docs.example.com"
            />
          )}
        </Field>
      )}
      <NamespaceChecks
        selected={fields.namespaces}
        onChange={(namespaces) => onChange({ namespaces })}
        error={errors.namespaces}
        disabled={!publishable && fields.admin}
        hint={
          publishable
            ? 'What its pages may read: leave out namespaces with internal pages (wiki).'
            : fields.admin
              ? 'An admin key reaches every namespace.'
              : 'None checked: every namespace. Checked: searches, answers, FAQs and ingestion outside them are refused.'
        }
      />
      <div className="limits">
        <LimitField label="Requests / minute" name="rpm" value={fields.rpm} onChange={(rpm) => onChange({ rpm })} />
        <LimitField label="Requests / day" name="rpd" value={fields.rpd} onChange={(rpd) => onChange({ rpd })} />
        {publishable && (
          <>
            <LimitField label="Questions a visitor / minute" name="visitorRpm" value={fields.visitorRpm} onChange={(visitorRpm) => onChange({ visitorRpm })} />
            <LimitField label="Questions a visitor / day" name="visitorRpd" value={fields.visitorRpd} onChange={(visitorRpd) => onChange({ visitorRpd })} />
            <LimitField label="Answers a day (whole key)" name="dailyAnswers" value={fields.dailyAnswers} onChange={(dailyAnswers) => onChange({ dailyAnswers })} />
          </>
        )}
      </div>
      <p className="muted small hint">
        Limits: empty is no limit, 0 blocks.
        {publishable &&
          ` Visitors are counted by their address; the defaults are ${PUBLISHABLE_DEFAULTS.visitorRateLimitRpm} questions a minute and ${PUBLISHABLE_DEFAULTS.visitorRateLimitRpd} a day per visitor, ${PUBLISHABLE_DEFAULTS.dailyAnswerLimit?.toLocaleString()} answers a day for the key.`}
      </p>
    </>
  );
}

/** A labelled control with its hint and its problem, both read out with it. */
function Field({
  label,
  hint,
  error,
  children,
}: {
  label: string;
  hint?: string;
  error?: string;
  children(props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean }): ReactNode;
}) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({ id, ...(described ? { 'aria-describedby': described } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {hint && (
        <p id={`${id}-hint`} className="muted small hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

function LimitField({ label, name, value, onChange }: { label: string; name: string; value: string; onChange(value: string): void }) {
  return (
    <label>
      {label}
      <input name={name} inputMode="numeric" value={value} onChange={(event) => onChange(event.target.value)} placeholder="no limit" className="narrow" />
    </label>
  );
}

export function NamespaceChecks({
  selected,
  onChange,
  error,
  hint,
  disabled = false,
}: {
  selected: readonly Namespace[];
  onChange(namespaces: Namespace[]): void;
  error?: string;
  hint: string;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <fieldset className="checks" aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`} aria-invalid={error ? true : undefined} disabled={disabled}>
      <legend>Namespaces</legend>
      {NAMESPACES.map((name) => (
        <label key={name} className="check">
          <input
            type="checkbox"
            name="namespaces"
            value={name}
            checked={!disabled && selected.includes(name)}
            onChange={(event) => onChange(NAMESPACES.filter((candidate) => (candidate === name ? event.target.checked : selected.includes(candidate))))}
          />
          {name}
        </label>
      ))}
      <p id={`${id}-hint`} className="muted small hint">
        {hint}
      </p>
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** Focuses the first control of the form whose field has a problem (keyboard and screen-reader users land on it). */
export function focusFirstProblem(form: HTMLFormElement | null): void {
  form?.querySelector<HTMLElement>('[aria-invalid="true"] input, [aria-invalid="true"]:is(input, textarea)')?.focus();
}

function limit(value: number | null | undefined, unit: string): string {
  return value === null || value === undefined ? `unlimited ${unit}` : `${value.toLocaleString()} ${unit}`;
}

export function KindBadges({ apiKey }: { apiKey: ApiKey }) {
  return (
    <span className="badges">
      <span className={`badge kind-${apiKey.kind}`}>{apiKey.kind}</span>
      {apiKey.admin && <span className="badge admin">admin</span>}
    </span>
  );
}

export function Scope({ apiKey }: { apiKey: ApiKey }) {
  // One element: a phone's table cell lays its children out in a row.
  return (
    <div>
      <span>{apiKey.namespaces ? apiKey.namespaces.join(', ') : 'all namespaces'}</span>
      {apiKey.kind === 'publishable' && (
        <span className="muted small block">from {apiKey.allowedOrigins && apiKey.allowedOrigins.length > 0 ? apiKey.allowedOrigins.join(', ') : 'no site'}</span>
      )}
    </div>
  );
}

export function Limits({ apiKey }: { apiKey: ApiKey }) {
  return (
    <div>
      <span>
        {limit(apiKey.rateLimitRpm, '/ min')}, {limit(apiKey.rateLimitRpd, '/ day')}
      </span>
      {apiKey.kind === 'publishable' && (
        <>
          <span className="muted small block">
            a visitor: {limit(apiKey.visitorRateLimitRpm, '/ min')}, {limit(apiKey.visitorRateLimitRpd, '/ day')}
          </span>
          <span className="muted small block">answers: {limit(apiKey.dailyAnswerLimit, '/ day')}</span>
        </>
      )}
    </div>
  );
}
