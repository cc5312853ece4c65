/**
 * Lore's console at /console: sign in with an organisation's API token (or the master key,
 * which shows the organisations), then analytics, conversations and management pages. It
 * talks to the public REST API only, with the credential it was given, so it can do nothing
 * the API forbids. Routes are the URL's hash (#/collections/…), so /console is one page.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { identify, saveSession, savedSession, type Session } from './api.js';
import { ConversationView, Conversations } from './conversations.js';
import { ApiKeys, Collections, Entries, Organisations, UsageView, Widgets } from './manage.js';
import { Overview } from './overview.js';
import { Playground } from './playground.js';
import { ErrorNote, messageOf } from './ui.js';

const ORGANISATION_NAV = [
  ['#/', 'Analytics'],
  ['#/conversations', 'Conversations'],
  ['#/playground', 'Playground'],
  ['#/collections', 'Collections'],
  ['#/widgets', 'Widgets'],
  ['#/keys', 'API keys'],
  ['#/usage', 'Usage'],
] as const;

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/');
  useEffect(() => {
    const update = () => setHash(location.hash || '#/');
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function SignIn({ onSession }: { onSession: (session: Session) => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <form
        class="card"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const role = await identify(token.trim());
            if (role === null) setError('Lore does not know this token. Use an organisation API token (lore_…) or the master key.');
            else onSession({ token: token.trim(), role });
          } catch (err) {
            setError(messageOf(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Lore console</h1>
        <p class="muted">Sign in with an organisation's API token, or with the master key to manage organisations. It stays in this tab only.</p>
        <label class="block">
          Token
          <input type="password" autoComplete="off" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} required autoFocus />
        </label>
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>{busy ? 'Checking…' : 'Sign in'}</button>
      </form>
    </main>
  );
}

/** The page the hash names, for the signed-in session (each page is a `Page` of page.tsx). */
function Route({ session, hash, onSession }: { session: Session; hash: string; onSession: (session: Session) => void }) {
  const { token, role } = session;
  const [, first, second] = hash.slice(1).split('/');
  if (role === 'master') return <Organisations token={token} onOpen={(t) => { location.hash = '#/'; onSession({ token: t, role: 'organisation' }); }} />;
  switch (first) {
    case '':
    case undefined:
      return <Overview token={token} />;
    case 'conversations':
      return second ? <ConversationView token={token} id={decodeURIComponent(second)} /> : <Conversations token={token} />;
    case 'collections':
      return second ? <Entries token={token} collection={decodeURIComponent(second)} /> : <Collections token={token} />;
    case 'playground':
      return <Playground token={token} />;
    case 'widgets':
      return <Widgets token={token} />;
    case 'keys':
      return <ApiKeys token={token} />;
    case 'usage':
      return <UsageView token={token} />;
    default:
      return <p>There is no such page. <a href="#/">Go to analytics</a>.</p>;
  }
}

function App() {
  const [session, setSession] = useState<Session | null>(savedSession);
  const hash = useHash();
  const signIn = (s: Session | null) => {
    saveSession(s);
    setSession(s);
  };
  if (!session) return <SignIn onSession={signIn} />;
  const nav = session.role === 'master' ? [['#/', 'Organisations']] : ORGANISATION_NAV;
  const current = '#/' + (hash.slice(2).split('/')[0] ?? '');
  return (
    <>
      <header class="top">
        <a class="brand" href="#/">Lore</a>
        <nav aria-label="Console">
          {nav.map(([href, label]) => (
            <a key={href} href={href} aria-current={current === href ? 'page' : undefined}>{label}</a>
          ))}
        </nav>
        <button type="button" class="link signout" onClick={() => signIn(null)}>Sign out</button>
      </header>
      <main>
        <Route session={session} hash={hash} onSession={signIn} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('console')!);
