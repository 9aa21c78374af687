import { useCallback, useEffect, useRef, useState, type ComponentType } from 'react';

import { createApiClient, type ApiClient } from './api/client';
import { ApiProvider } from './api/context';
import type { RuntimeConfig } from './api/types';
import { beginSignIn, clearToken, completeSignIn, signOut, storedToken } from './auth/cognito';
import { ErrorNotice, Loading } from './components/Status';
import { loadConfig } from './config';
import { ROUTES, useRoute, type RouteId } from './lib/router';
import { Accuracy } from './pages/Accuracy';
import { Audit } from './pages/Audit';
import { Budgets } from './pages/Budgets';
import { Guardrails } from './pages/Guardrails';
import { Keys } from './pages/Keys';
import { Ledger } from './pages/Ledger';
import { Overview } from './pages/Overview';
import { Sessions } from './pages/Sessions';

type AppState =
  | { kind: 'loading' }
  | { kind: 'error'; error: Error }
  | { kind: 'signed-out'; config: RuntimeConfig; message?: string }
  | { kind: 'ready'; config: RuntimeConfig; client: ApiClient };

const PAGES: Record<RouteId, ComponentType> = {
  overview: Overview,
  ledger: Ledger,
  guardrails: Guardrails,
  sessions: Sessions,
  budgets: Budgets,
  keys: Keys,
  accuracy: Accuracy,
  audit: Audit,
};

/** Loads config.json, signs in (local token or Cognito Hosted UI), then shows the dashboard. */
export function App({ configUrl = './config.json' }: { configUrl?: string }) {
  const [state, setState] = useState<AppState>({ kind: 'loading' });
  const token = useRef<string | null>(null);

  const boot = useCallback(async () => {
    setState({ kind: 'loading' });
    let config: RuntimeConfig;
    try {
      config = await loadConfig(configUrl);
    } catch (err) {
      setState({ kind: 'error', error: err instanceof Error ? err : new Error(String(err)) });
      return;
    }
    const auth = config.auth;
    if (auth.mode === 'local') {
      token.current = auth.idToken;
    } else {
      try {
        token.current = (await completeSignIn(auth)) ?? storedToken();
      } catch (err) {
        setState({ kind: 'signed-out', config, message: err instanceof Error ? err.message : String(err) });
        return;
      }
      if (!token.current) {
        setState({ kind: 'signed-out', config });
        void beginSignIn(auth);
        return;
      }
    }
    const client = createApiClient({
      apiUrl: config.apiUrl,
      getToken: () => token.current,
      onUnauthorized: async () => {
        if (auth.mode === 'local') {
          // The local issuer's tokens expire after an hour; config.json hands out a fresh one.
          try {
            const fresh = await loadConfig(configUrl);
            if (fresh.auth.mode === 'local' && fresh.auth.idToken !== token.current) {
              token.current = fresh.auth.idToken;
              return true;
            }
          } catch {
            // keep the 401
          }
          return false;
        }
        clearToken();
        token.current = null;
        setState({ kind: 'signed-out', config, message: 'Your session has expired. Sign in again.' });
        return false;
      },
    });
    setState({ kind: 'ready', config, client });
  }, [configUrl]);

  // Once per mount: StrictMode's second effect run must not start a second sign-in.
  const booted = useRef(false);
  useEffect(() => {
    if (booted.current) return;
    booted.current = true;
    void boot();
  }, [boot]);

  if (state.kind === 'loading') {
    return (
      <div className="center-screen">
        <Loading label="Starting Spendguard…" />
      </div>
    );
  }
  if (state.kind === 'error') {
    return (
      <div className="center-screen">
        <ErrorNotice title="The dashboard could not start" error={state.error} onRetry={() => void boot()} />
      </div>
    );
  }
  if (state.kind === 'signed-out') {
    const auth = state.config.auth;
    return (
      <div className="center-screen">
        <div className="card signin">
          <h1>Spendguard</h1>
          {state.message ? <p role="alert">{state.message}</p> : <p role="status">Redirecting to sign-in…</p>}
          {auth.mode === 'cognito' && (
            <button type="button" className="btn btn-primary" onClick={() => void beginSignIn(auth)}>
              Sign in
            </button>
          )}
        </div>
      </div>
    );
  }
  const auth = state.config.auth;
  return (
    <ApiProvider client={state.client}>
      <Shell onSignOut={auth.mode === 'cognito' ? () => signOut(auth) : undefined} />
    </ApiProvider>
  );
}

/** Header, navigation (collapsing to a menu on narrow screens) and the current page. */
export function Shell({ onSignOut }: { onSignOut?: () => void }) {
  const route = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const Page = PAGES[route];
  const title = ROUTES.find((r) => r.id === route)?.title ?? 'Overview';

  useEffect(() => {
    document.title = `${title} · Spendguard`;
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    // Move focus to the new page so keyboard and screen-reader users start at its top.
    main.current?.focus();
  }, [route, title]);

  return (
    <>
      <button type="button" className="skip-link" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header className="topbar">
        <a className="brand" href="#/overview" aria-label="Spendguard overview">
          <span className="brand-mark" aria-hidden="true" />
          Spendguard
        </a>
        <button
          type="button"
          className="nav-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}
        >
          <span aria-hidden="true">☰</span> Menu
        </button>
        <nav id="main-nav" aria-label="Main" className={menuOpen ? 'open' : undefined}>
          <ul>
            {ROUTES.map((r) => (
              <li key={r.id}>
                <a
                  href={`#/${r.id}`}
                  aria-current={route === r.id ? 'page' : undefined}
                  onClick={() => setMenuOpen(false)}
                >
                  {r.title}
                </a>
              </li>
            ))}
          </ul>
          {onSignOut && (
            <button type="button" className="btn btn-small signout" onClick={onSignOut}>
              Sign out
            </button>
          )}
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        <Page key={route} />
      </main>
    </>
  );
}
