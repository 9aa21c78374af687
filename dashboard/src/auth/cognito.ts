/**
 * Sign-in with the Cognito Hosted UI: authorization code flow with PKCE (S256), public app client
 * (no secret), scopes `openid email`. The ID token is kept in sessionStorage, so it lives as long as
 * the tab and never reaches another site. No Amplify.
 *
 * The app client must list the dashboard's URL (origin + path, no hash) as a callback and sign-out URL.
 */
import type { CognitoAuthConfig } from '../api/types';

const TOKEN_KEY = 'spendguard.idToken';
const PKCE_KEY = 'spendguard.pkce';

export class SignInError extends Error {
  override readonly name = 'SignInError';
}

/** `https://<prefix>.auth.<region>.amazoncognito.com`, or the custom domain as given. */
export function hostedUiBase(cfg: CognitoAuthConfig): string {
  const d = cfg.domain.trim().replace(/\/+$/, '');
  if (/^https?:\/\//.test(d)) return d;
  if (d.includes('.')) return `https://${d}`;
  return `https://${d}.auth.${cfg.region}.amazoncognito.com`;
}

/** Where Cognito sends the browser back: this page without query or hash. */
export function redirectUri(loc: Location = window.location): string {
  return `${loc.origin}${loc.pathname}`;
}

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(byteLength: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(byteLength)));
}

export async function pkceChallenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

/** The authorize URL; stores the verifier and state for {@link completeSignIn}. */
export async function buildAuthorizeUrl(cfg: CognitoAuthConfig): Promise<string> {
  const verifier = randomString(48);
  const state = randomString(16);
  const returnTo = window.location.hash;
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, returnTo }));
  const params = new URLSearchParams({
    response_type: 'code',
    client_id: cfg.clientId,
    redirect_uri: redirectUri(),
    scope: 'openid email',
    state,
    code_challenge: await pkceChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return `${hostedUiBase(cfg)}/oauth2/authorize?${params.toString()}`;
}

export async function beginSignIn(cfg: CognitoAuthConfig): Promise<void> {
  window.location.assign(await buildAuthorizeUrl(cfg));
}

/** Seconds-since-epoch `exp` of a JWT, or undefined when it cannot be read. */
export function tokenExpiry(jwt: string): number | undefined {
  const payload = jwt.split('.')[1];
  if (!payload) return undefined;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof json.exp === 'number' ? json.exp : undefined;
  } catch {
    return undefined;
  }
}

/** The stored ID token while it has more than a minute left, else null. */
export function storedToken(now = Date.now()): string | null {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) return null;
  const exp = tokenExpiry(token);
  if (exp === undefined || exp * 1000 - 60_000 <= now) {
    sessionStorage.removeItem(TOKEN_KEY);
    return null;
  }
  return token;
}

export function clearToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * Finishes a sign-in when the URL carries Cognito's `code` (or `error`): checks `state`, exchanges
 * the code with the PKCE verifier at `/oauth2/token`, stores the ID token and removes the query from
 * the address bar. Returns the token, or null when the URL is not a sign-in callback.
 */
export async function completeSignIn(cfg: CognitoAuthConfig): Promise<string | null> {
  const params = new URLSearchParams(window.location.search);
  const code = params.get('code');
  const error = params.get('error');
  if (!code && !error) return null;
  const saved = JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(PKCE_KEY);
  window.history.replaceState(
    null,
    '',
    `${window.location.pathname}${saved?.returnTo ?? window.location.hash}`,
  );
  if (error) throw new SignInError(`Sign-in failed: ${params.get('error_description') ?? error}`);
  if (!saved || params.get('state') !== saved.state)
    throw new SignInError('Sign-in failed: the state did not match; try again');

  const response = await fetch(`${hostedUiBase(cfg)}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: cfg.clientId,
      code: code ?? '',
      redirect_uri: redirectUri(),
      code_verifier: saved.verifier,
    }).toString(),
  });
  const body = (await response.json().catch(() => ({}))) as { id_token?: string; error?: string };
  if (!response.ok || !body.id_token) {
    throw new SignInError(
      `Sign-in failed: ${body.error ?? `token endpoint answered HTTP ${response.status}`}`,
    );
  }
  sessionStorage.setItem(TOKEN_KEY, body.id_token);
  return body.id_token;
}

/** Clears the token and ends the Hosted UI session. */
export function signOut(cfg: CognitoAuthConfig): void {
  clearToken();
  const params = new URLSearchParams({ client_id: cfg.clientId, logout_uri: redirectUri() });
  window.location.assign(`${hostedUiBase(cfg)}/logout?${params.toString()}`);
}
