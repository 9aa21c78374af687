import { afterEach, describe, expect, it } from 'vitest';

import type { CognitoAuthConfig } from '../api/types';
import { mockApi } from '../test/mockApi';
import {
  buildAuthorizeUrl,
  completeSignIn,
  hostedUiBase,
  pkceChallenge,
  storedToken,
  tokenExpiry,
} from './cognito';

const CFG: CognitoAuthConfig = {
  mode: 'cognito',
  region: 'eu-west-1',
  userPoolId: 'eu-west-1_AbCdEf123',
  clientId: '4s1f0example0client0id',
  domain: 'spendguard-demo',
};

function jwt(payload: object): string {
  const b64 = (o: object) =>
    btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${b64({ alg: 'RS256' })}.${b64(payload)}.sig`;
}

afterEach(() => window.history.replaceState(null, '', '/'));

describe('Cognito Hosted UI sign-in', () => {
  it.each([
    ['spendguard-demo', 'https://spendguard-demo.auth.eu-west-1.amazoncognito.com'],
    ['auth.example.com', 'https://auth.example.com'],
    ['https://auth.example.com/', 'https://auth.example.com'],
  ])('hosted UI base of %s', (domain, base) => expect(hostedUiBase({ ...CFG, domain })).toBe(base));

  it('computes the S256 challenge of RFC 7636 appendix B', async () => {
    expect(await pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('builds the authorize URL with PKCE and state', async () => {
    window.history.replaceState(null, '', '/dashboard/#/ledger');
    const url = new URL(await buildAuthorizeUrl(CFG));
    expect(url.origin + url.pathname).toBe(
      'https://spendguard-demo.auth.eu-west-1.amazoncognito.com/oauth2/authorize',
    );
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: CFG.clientId,
      redirect_uri: 'http://localhost:3000/dashboard/',
      scope: 'openid email',
      code_challenge_method: 'S256',
    });
    const saved = JSON.parse(sessionStorage.getItem('spendguard.pkce')!) as {
      verifier: string;
      state: string;
      returnTo: string;
    };
    expect(url.searchParams.get('state')).toBe(saved.state);
    expect(url.searchParams.get('code_challenge')).toBe(await pkceChallenge(saved.verifier));
    expect(saved.returnTo).toBe('#/ledger');
  });

  it('exchanges the code for an ID token, stores it and cleans the address bar', async () => {
    window.history.replaceState(null, '', '/dashboard/#/keys');
    await buildAuthorizeUrl(CFG);
    const { state, verifier } = JSON.parse(sessionStorage.getItem('spendguard.pkce')!) as {
      state: string;
      verifier: string;
    };
    window.history.replaceState(null, '', `/dashboard/?code=abc123&state=${state}`);
    const idToken = jwt({ sub: 'u1', exp: Math.floor(Date.now() / 1000) + 3600 });
    const api = mockApi({
      'POST /oauth2/token': { body: { id_token: idToken, access_token: 'a', token_type: 'Bearer' } },
    });

    await expect(completeSignIn(CFG)).resolves.toBe(idToken);

    const [call] = api.calls;
    expect(call?.url.href).toBe('https://spendguard-demo.auth.eu-west-1.amazoncognito.com/oauth2/token');
    expect(call?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(String(call?.body));
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'authorization_code',
      client_id: CFG.clientId,
      code: 'abc123',
      redirect_uri: 'http://localhost:3000/dashboard/',
      code_verifier: verifier,
    });
    expect(window.location.search).toBe('');
    expect(window.location.hash).toBe('#/keys');
    expect(storedToken()).toBe(idToken);
  });

  it('refuses a callback whose state does not match', async () => {
    await buildAuthorizeUrl(CFG);
    window.history.replaceState(null, '', '/?code=abc&state=forged');
    await expect(completeSignIn(CFG)).rejects.toThrow(/state did not match/);
    expect(storedToken()).toBeNull();
  });

  it('reports a Hosted UI error', async () => {
    window.history.replaceState(null, '', '/?error=access_denied&error_description=User+is+disabled');
    await expect(completeSignIn(CFG)).rejects.toThrow('Sign-in failed: User is disabled');
  });

  it('forgets a token that is about to expire', () => {
    const soon = jwt({ exp: Math.floor(Date.now() / 1000) + 30 });
    expect(tokenExpiry(soon)).toBeGreaterThan(0);
    sessionStorage.setItem('spendguard.idToken', soon);
    expect(storedToken()).toBeNull();
    expect(sessionStorage.getItem('spendguard.idToken')).toBeNull();
  });
});
