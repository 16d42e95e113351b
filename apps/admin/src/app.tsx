import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { KbError } from '@kb/sdk';
import { kb, loginConfigured, SESSION_ENDED } from './api.ts';
import { ConversationsPage } from './pages/conversations.tsx';
import { FeedbackPage } from './pages/feedback.tsx';
import { GapsPage } from './pages/gaps.tsx';
import { IngestPage } from './pages/ingest.tsx';
import { SourcesPage } from './pages/sources.tsx';
import { KeysPage } from './pages/keys.tsx';
import { KnowledgePage } from './pages/knowledge.tsx';
import { PlaygroundPage } from './pages/playground.tsx';
import { ErrorNote, SectionBoundary, useAction } from './ui.tsx';

const BASE = '/admin/';

/** Where a page is within itself (a document's id below /admin/knowledge/), and how it moves. */
export interface SubRoute {
  sub: string;
  navigate(sub: string): void;
}

const PAGES = [
  { path: 'keys', title: 'Keys', render: (route: SubRoute) => <KeysPage {...route} /> },
  { path: 'knowledge', title: 'Knowledge base', render: (route: SubRoute) => <KnowledgePage {...route} /> },
  { path: 'ingest', title: 'Ingestion', render: () => <IngestPage /> },
  { path: 'sources', title: 'Sources', render: () => <SourcesPage /> },
  { path: 'playground', title: 'Playground', render: () => <PlaygroundPage /> },
  { path: 'conversations', title: 'Conversations', render: () => <ConversationsPage /> },
  { path: 'feedback', title: 'Feedback', render: () => <FeedbackPage /> },
  { path: 'gaps', title: 'Knowledge gaps', render: () => <GapsPage /> },
] as const;

type PagePath = (typeof PAGES)[number]['path'];

interface Place {
  page: PagePath;
  sub: string;
}

/** The page named by the address (/admin/keys ...; the first one for /admin/ or an unknown name) and the rest of it. */
function placeFromLocation(): Place {
  const [name, ...rest] = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length).split('/') : [];
  const page = PAGES.find((candidate) => candidate.path === name)?.path;
  if (!page) {
    // An unknown section: the first one, under its own address rather than the unknown one.
    if (name) window.history.replaceState(null, '', `${BASE}keys`);
    return { page: 'keys', sub: '' };
  }
  let sub = rest.join('/');
  try {
    sub = decodeURIComponent(sub);
  } catch {
    // A malformed escape: the page shows what it can of it.
  }
  return { page, sub };
}

type Session = 'checking' | 'signed-in' | 'signed-out';

export function App() {
  const [session, setSession] = useState<Session>('checking');
  const [ended, setEnded] = useState(false);
  /** Why the first check failed, when it was not a 401 (the service down, an error): shown on the sign-in form. */
  const [checkError, setCheckError] = useState<unknown>(undefined);
  const [place, setPlace] = useState<Place>(placeFromLocation);
  const { page } = place;

  useEffect(() => {
    // Whether the browser holds a live session: an admin call answers 200 or 401.
    kb.keys.list().then(
      () => setSession('signed-in'),
      (error: unknown) => {
        if (!(error instanceof KbError && error.status === 401)) setCheckError(error);
        setSession('signed-out');
      },
    );
    const onEnded = () => {
      setSession((current) => {
        if (current === 'signed-in') setEnded(true);
        return 'signed-out';
      });
    };
    const onPop = () => setPlace(placeFromLocation());
    window.addEventListener(SESSION_ENDED, onEnded);
    window.addEventListener('popstate', onPop);
    return () => {
      window.removeEventListener(SESSION_ENDED, onEnded);
      window.removeEventListener('popstate', onPop);
    };
  }, []);

  const go = useCallback((path: PagePath, sub = '') => {
    const address = BASE + path + (sub ? `/${encodeURIComponent(sub)}` : '');
    if (window.location.pathname !== address) window.history.pushState(null, '', address);
    setPlace({ page: path, sub });
    window.scrollTo(0, 0);
  }, []);

  const current = PAGES.find((candidate) => candidate.path === page)!;
  useEffect(() => {
    document.title = session === 'signed-in' ? `${current.title} · kb admin` : 'Sign in · kb admin';
  }, [current, session]);

  if (session === 'checking') return <p className="loading-screen">Loading…</p>;
  if (session === 'signed-out') {
    return (
      <SignIn
        ended={ended}
        checkError={checkError}
        onSignedIn={() => {
          setEnded(false);
          setCheckError(undefined);
          setSession('signed-in');
        }}
      />
    );
  }

  return (
    <div className="shell">
      <header className="top">
        <a
          className="brand"
          href={BASE}
          onClick={(event) => {
            event.preventDefault();
            go('keys');
          }}
        >
          kb admin
        </a>
        <nav className="tabs" aria-label="Sections">
          {PAGES.map((candidate) => (
            <a
              key={candidate.path}
              href={BASE + candidate.path}
              aria-current={candidate.path === page ? 'page' : undefined}
              onClick={(event) => {
                if (event.metaKey || event.ctrlKey || event.shiftKey) return;
                event.preventDefault();
                go(candidate.path);
              }}
            >
              {candidate.title}
            </a>
          ))}
        </nav>
        <SignOut onSignedOut={() => setSession('signed-out')} />
      </header>
      <main key={page}>
        <h1>{current.title}</h1>
        <SectionBoundary key={place.sub}>{current.render({ sub: place.sub, navigate: (sub) => go(page, sub) })}</SectionBoundary>
      </main>
    </div>
  );
}

function SignOut({ onSignedOut }: { onSignedOut(): void }) {
  const action = useAction();
  return (
    <div className="signout">
      <button type="button" disabled={action.busy} onClick={() => void action.run(() => kb.auth.logout()).then((done) => done && onSignedOut())}>
        Sign out
      </button>
      <ErrorNote error={action.error} />
    </div>
  );
}

function SignIn({ ended, checkError, onSignedIn }: { ended: boolean; checkError: unknown; onSignedIn(): void }) {
  const [password, setPassword] = useState('');
  const action = useAction();
  const configured = loginConfigured();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const done = await action.run(() => kb.auth.login(password));
    if (done) {
      setPassword('');
      onSignedIn();
    }
  }

  return (
    <main className="signin">
      <h1>kb admin</h1>
      {configured === 'disabled' ? (
        <div className="card" role="status">
          <h2>Admin sign-in is not enabled</h2>
          <p>
            This server has no admin password. Set <code>KB_ADMIN_PASSWORD</code> in its environment (at least 12 characters) and
            restart it, then reload this page.
          </p>
          <pre>KB_ADMIN_PASSWORD='a long secret' pnpm start</pre>
          <p className="muted">
            The API works without it: admin calls take an admin API key (<code>pnpm kb keys create --admin</code>).
          </p>
        </div>
      ) : (
        <form className="card" onSubmit={(event) => void submit(event)}>
          <h2>Sign in</h2>
          {ended && (
            <p className="notice" role="status">
              Your session has ended. Sign in again to go on.
            </p>
          )}
          <label>
            Admin password
            <input type="password" name="password" autoComplete="current-password" required value={password} onChange={(event) => setPassword(event.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={action.busy || password === ''}>
            {action.busy ? 'Signing in…' : 'Sign in'}
          </button>
          <ErrorNote error={action.error ?? checkError} />
          <p className="muted">The password is the server's KB_ADMIN_PASSWORD. The session is kept in an HttpOnly cookie.</p>
        </form>
      )}
    </main>
  );
}
