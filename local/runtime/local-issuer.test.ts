import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { JwtVerifier } from 'aws-jwt-verify';

import {
  createLocalIssuer,
  LOCAL_DASHBOARD_TOKEN_TTL_SECONDS,
  renewingIdToken,
  type LocalIssuer,
} from './local-issuer';

const issuerUrl = 'http://127.0.0.1:3000/local-issuer';

describe('createLocalIssuer', () => {
  // Generating an RSA key takes a few hundred milliseconds: one issuer (and one impostor) for the file.
  let issuer: LocalIssuer;
  let impostor: LocalIssuer;

  beforeAll(async () => {
    [issuer, impostor] = await Promise.all([
      createLocalIssuer({ memory: true, issuerUrl }),
      createLocalIssuer({ memory: true, issuerUrl }),
    ]);
  });

  it('issues Cognito-shaped ID tokens that its aws-jwt-verify verifier accepts', async () => {
    // Prepare
    const before = Math.floor(Date.now() / 1000);

    // Act
    const token = await issuer.issueIdToken({ sub: 'user-1', email: 'dev@example.com', orgId: 'org-1' });
    const claims = await issuer.createVerifier().verify(token);

    // Assess
    expect(claims).toMatchObject({
      sub: 'user-1',
      email: 'dev@example.com',
      'custom:orgId': 'org-1',
      token_use: 'id',
      aud: 'spendguard-local',
      iss: issuerUrl,
      'cognito:username': 'user-1',
    });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.exp).toBe((claims.iat as number) + 3600);
    expect(claims.auth_time).toBe(claims.iat);
    expect(issuer.jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(issuer.jwks.keys[0]).not.toHaveProperty('d');
    expect(issuer.jwksUri).toBe(`${issuerUrl}/.well-known/jwks.json`);
  });

  it('is verifiable by a plain JwtVerifier given the published JWKS', async () => {
    // Prepare
    const verifier = JwtVerifier.create({
      issuer: issuerUrl,
      audience: 'dashboard',
      jwksUri: issuer.jwksUri,
    });
    verifier.cacheJwks(issuer.jwks);

    // Act
    const token = await issuer.issueIdToken({ sub: 'u', email: 'e@x', orgId: 'o', audience: 'dashboard' });
    const claims = await verifier.verify(token);

    // Assess
    expect(claims.sub).toBe('u');
  });

  it.each([
    ['expired', { issuedAt: new Date(Date.now() - 7200_000), ttlSeconds: 3600 }, /expired/i],
    ['for another audience', { audience: 'someone-else' }, /audience/i],
  ])('rejects a token that is %s', async (_name, overrides, message) => {
    // Prepare
    const token = await issuer.issueIdToken({ sub: 'u', email: 'e@x', orgId: 'o', ...overrides });

    // Act
    const verification = issuer.createVerifier().verify(token);

    // Assess
    await expect(verification).rejects.toThrow(message);
  });

  it('rejects a token whose signature is not its own', async () => {
    // Prepare: the same header and claims, signed by another key.
    const genuine = await issuer.issueIdToken({ sub: 'u', email: 'e@x', orgId: 'o' });
    const forged = await impostor.issueIdToken({ sub: 'u', email: 'e@x', orgId: 'o' });
    const [header, payload] = genuine.split('.');
    const swapped = `${header}.${payload}.${forged.split('.')[2]}`;

    // Act
    const verification = issuer.createVerifier().verify(swapped);

    // Assess
    await expect(verification).rejects.toThrow(/signature/i);
  });

  it('keeps its key in the data dir, so tokens survive a restart', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'spendguard-issuer-'));
    try {
      const first = await createLocalIssuer({ dataDir, issuerUrl });
      const token = await first.issueIdToken({ sub: 'u', email: 'e@x', orgId: 'o' });

      // Act
      const second = await createLocalIssuer({ dataDir, issuerUrl });

      // Assess
      expect(second.jwks).toEqual(first.jwks);
      await expect(second.createVerifier().verify(token)).resolves.toMatchObject({ sub: 'u' });
      const keyFile = await stat(join(dataDir, 'local-issuer', 'signing-key.json'));
      expect(keyFile.mode & 0o077).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('renewingIdToken (the local dashboard token, issue 15.8)', () => {
  const claims = (token: string) =>
    JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
      iat: number;
      exp: number;
    };

  it('lives hours, not days, and is re-issued once half its lifetime has passed', async () => {
    const issuer = await createLocalIssuer({ memory: true, issuerUrl });
    let now = Date.now();
    const token = renewingIdToken(issuer, { sub: 'u', email: 'u@localhost', orgId: 'org_1' }, () => now);
    const first = await token.current();
    const { iat, exp } = claims(first);
    expect(exp - iat).toBe(LOCAL_DASHBOARD_TOKEN_TTL_SECONDS);
    expect(LOCAL_DASHBOARD_TOKEN_TTL_SECONDS).toBeLessThanOrEqual(12 * 3600);
    now += (LOCAL_DASHBOARD_TOKEN_TTL_SECONDS / 2) * 1000 - 1000;
    expect(await token.current()).toBe(first);
    now += 1000;
    const second = await token.current();
    expect(second).not.toBe(first);
    expect(claims(second).exp).toBeGreaterThan(exp);
    // Whatever the moment of asking, the token handed out has at least half its lifetime left.
    expect(claims(second).exp * 1000 - now).toBeGreaterThanOrEqual(
      (LOCAL_DASHBOARD_TOKEN_TTL_SECONDS / 2) * 1000,
    );
  });
});
