/**
 * The Cognito stand-in: an RS256 signing key, its public JWKS, and ID tokens shaped like a Cognito
 * user pool's, verified by the same `aws-jwt-verify` that verifies Cognito's tokens in AWS.
 *
 * Signing uses node:crypto rather than `jose`: jose 6 is published as ES modules only, which Jest
 * (CommonJS, Node 20) cannot load without changing the repository's transform settings, and RS256
 * over a JWK is a few lines with node:crypto. aws-jwt-verify does all the verifying.
 */
import {
  createHash,
  createPrivateKey,
  generateKeyPair,
  type JsonWebKey as NodeJsonWebKey,
  type KeyObject,
  randomUUID,
  sign,
} from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { JwtVerifier } from 'aws-jwt-verify';
import type { Jwks } from 'aws-jwt-verify/jwk';

import { InvalidOptionsError, LocalRuntimeError } from './errors';
import type { RawRoute } from './http-gateway';
import type { StandInStorage } from './stand-ins';

/** Options of {@link createLocalIssuer}. */
export type LocalIssuerOptions = StandInStorage & {
  /**
   * The `iss` of every token, with no trailing slash, e.g. `http://127.0.0.1:3000/local-issuer`.
   * The JWKS is expected at `<issuerUrl>/.well-known/jwks.json` (serve it with `jwksRoute()`).
   */
  readonly issuerUrl: string;
  /**
   * The app client id: the `aud` of ID tokens and the audience the verifier accepts.
   * @default 'spendguard-local'
   */
  readonly clientId?: string;
};

/** What an ID token is issued for. */
export interface IdTokenRequest {
  readonly sub: string;
  readonly email: string;
  /** Becomes the `custom:orgId` claim, as the Cognito user pool's custom attribute. */
  readonly orgId: string;
  /** @default the issuer's clientId */
  readonly audience?: string;
  /** @default 3600 (Cognito's default ID token validity) */
  readonly ttlSeconds?: number;
  /** Issue time (tokens issued in the past test expiry). @default now */
  readonly issuedAt?: Date;
  /** Further claims, e.g. `cognito:groups`. They cannot override the standard ones. */
  readonly extraClaims?: Readonly<Record<string, unknown>>;
}

/**
 * Lifetime of the ID token the local stack hands the dashboard through `GET /config.json`: hours, not
 * days (issue 15.8), so a token that leaks is soon useless; it is renewed at every start and, while the
 * stack runs, once half of it has passed (see {@link renewingIdToken}).
 */
export const LOCAL_DASHBOARD_TOKEN_TTL_SECONDS = 8 * 3600;

/** The running local issuer. */
export interface LocalIssuer {
  readonly issuer: string;
  readonly clientId: string;
  /** The public key set, as Cognito publishes it. */
  readonly jwks: Jwks;
  /** `<issuer>/.well-known/jwks.json` */
  readonly jwksUri: string;
  /** Signs a Cognito-shaped ID token. */
  issueIdToken(request: IdTokenRequest): Promise<string>;
  /**
   * An aws-jwt-verify verifier for this issuer's ID tokens (issuer, audience = clientId,
   * `token_use` = `id`, expiry, signature), with the JWKS already cached so it never fetches.
   */
  createVerifier(): LocalIdTokenVerifier;
  /** Serves the JWKS on the gateway at the path of `jwksUri`. */
  jwksRoute(): RawRoute;
}

/** The verifier {@link LocalIssuer.createVerifier} returns. */
export type LocalIdTokenVerifier = ReturnType<typeof createIdTokenVerifier>;

interface StoredKey {
  readonly version: 1;
  readonly kid: string;
  readonly privateJwk: NodeJsonWebKey;
}

const generateRsaKeyPair = promisify(generateKeyPair);

/**
 * Creates (or, with a data dir, reloads) the issuer's key. The key is kept as a private JWK in
 * `<dataDir>/local-issuer/signing-key.json`, so tokens a browser still holds verify after a restart.
 *
 * @example
 * const issuer = await createLocalIssuer({ dataDir: '.spendguard', issuerUrl: `${gateway.url}/local-issuer` });
 * gateway.addRawRoute(issuer.jwksRoute());
 * gateway.setJwtVerifier(issuer.createVerifier());
 * const token = await issuer.issueIdToken({ sub: 'user-1', email: 'dev@example.com', orgId: 'org-1' });
 */
export async function createLocalIssuer(options: LocalIssuerOptions): Promise<LocalIssuer> {
  const issuer = options.issuerUrl.replace(/\/+$/, '');
  if (!/^https?:\/\//.test(issuer)) {
    throw new InvalidOptionsError(`issuerUrl must be an http(s) URL, got "${options.issuerUrl}"`);
  }
  const clientId = options.clientId ?? 'spendguard-local';
  const keyFile =
    'dataDir' in options ? join(options.dataDir, 'local-issuer', 'signing-key.json') : undefined;
  const { kid, privateKey } = await loadOrCreateKey(keyFile);
  const publicJwk = privateKey.export({ format: 'jwk' });
  // Only the public members: export of a private key's public half would also carry d, p, q….
  const jwks: Jwks = {
    keys: [{ kty: 'RSA', n: String(publicJwk.n), e: String(publicJwk.e), kid, alg: 'RS256', use: 'sig' }],
  };
  const jwksUri = `${issuer}/.well-known/jwks.json`;
  const jwksBody = JSON.stringify(jwks);

  return {
    issuer,
    clientId,
    jwks,
    jwksUri,
    issueIdToken: async (request) => {
      const issuedAt = Math.floor((request.issuedAt?.getTime() ?? Date.now()) / 1000);
      const tokenId = randomUUID();
      const payload = {
        ...request.extraClaims,
        sub: request.sub,
        email_verified: true,
        iss: issuer,
        'cognito:username': request.sub,
        origin_jti: randomUUID(),
        aud: request.audience ?? clientId,
        event_id: randomUUID(),
        token_use: 'id',
        auth_time: issuedAt,
        exp: issuedAt + (request.ttlSeconds ?? 3600),
        iat: issuedAt,
        jti: tokenId,
        email: request.email,
        'custom:orgId': request.orgId,
      };
      return signRs256({ kid, alg: 'RS256' }, payload, privateKey);
    },
    createVerifier: () => {
      const verifier = createIdTokenVerifier(issuer, clientId, jwksUri);
      verifier.cacheJwks(jwks);
      return verifier;
    },
    jwksRoute: () => ({
      method: 'GET',
      path: new URL(jwksUri).pathname,
      handler: (_request, response) => {
        response.statusCode = 200;
        response.setHeader('content-type', 'application/json');
        response.setHeader('cache-control', 'public, max-age=300');
        response.end(jwksBody);
      },
    }),
  };
}

function createIdTokenVerifier(issuer: string, clientId: string, jwksUri: string) {
  return JwtVerifier.create({
    issuer,
    audience: clientId,
    jwksUri,
    // CognitoJwtVerifier checks token_use itself but insists on a cognito-idp issuer URL; the local
    // issuer has its own URL, so the generic verifier gets the same check here.
    customJwtCheck: ({ payload }) => {
      if (payload.token_use !== 'id') throw new LocalRuntimeError('Not an ID token (token_use must be "id")');
    },
  });
}

async function loadOrCreateKey(keyFile: string | undefined): Promise<{ kid: string; privateKey: KeyObject }> {
  if (keyFile !== undefined) {
    const stored = await readStoredKey(keyFile);
    if (stored !== undefined) {
      return {
        kid: stored.kid,
        privateKey: createPrivateKey({ key: stored.privateJwk, format: 'jwk' }),
      };
    }
  }
  const { privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
  const kid = thumbprint(privateKey);
  if (keyFile !== undefined) {
    const stored: StoredKey = { version: 1, kid, privateJwk: privateKey.export({ format: 'jwk' }) };
    await mkdir(join(keyFile, '..'), { recursive: true });
    // Owner-only: it is a signing key, even if only a local one.
    await writeFile(keyFile, `${JSON.stringify(stored, null, 2)}\n`, { encoding: 'utf8', mode: 0o600 });
  }
  return { kid, privateKey };
}

async function readStoredKey(keyFile: string): Promise<StoredKey | undefined> {
  let text: string;
  try {
    text = await readFile(keyFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<StoredKey>;
  if (typeof parsed.kid !== 'string' || typeof parsed.privateJwk !== 'object' || parsed.privateJwk === null) {
    throw new LocalRuntimeError(`${keyFile} is not a local issuer key; delete it to generate a new one`);
  }
  return parsed as StoredKey;
}

/** RFC 7638 JWK thumbprint: a stable key id derived from the public key. */
function thumbprint(privateKey: KeyObject): string {
  const jwk = privateKey.export({ format: 'jwk' });
  const canonical = JSON.stringify({ e: jwk.e, kty: jwk.kty, n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}

function signRs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: KeyObject,
): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  const signingInput = `${encode(header)}.${encode(payload)}`;
  const signature = sign('sha256', Buffer.from(signingInput, 'utf8'), key).toString('base64url');
  return `${signingInput}.${signature}`;
}

/** An ID token that is re-issued before it expires. */
export interface RenewingIdToken {
  /** The current token: a fresh one when less than half of the last one's lifetime is left. */
  current(): Promise<string>;
}

/**
 * Keeps one ID token fresh for a long-running local stack: issued now, re-issued on demand once half
 * its lifetime (`request.ttlSeconds`, default {@link LOCAL_DASHBOARD_TOKEN_TTL_SECONDS}) has passed,
 * so the dashboard's reload of `config.json` after a 401 always finds a valid token.
 *
 * @example
 * const token = renewingIdToken(issuer, { sub: 'local-user', email: 'you@localhost', orgId });
 * res.end(JSON.stringify({ auth: { mode: 'local', idToken: await token.current() } }));
 */
export function renewingIdToken(
  issuer: Pick<LocalIssuer, 'issueIdToken'>,
  request: Omit<IdTokenRequest, 'issuedAt'>,
  now: () => number = Date.now,
): RenewingIdToken {
  const ttlMs = (request.ttlSeconds ?? LOCAL_DASHBOARD_TOKEN_TTL_SECONDS) * 1000;
  let issued: { token: Promise<string>; at: number } | undefined;
  return {
    current: () => {
      const t = now();
      if (issued === undefined || t - issued.at >= ttlMs / 2) {
        const at = t;
        const token = issuer.issueIdToken({
          ...request,
          ttlSeconds: ttlMs / 1000,
          issuedAt: new Date(at),
        });
        issued = { token, at };
        // A failed signature must not stick: the next call tries again.
        token.catch(() => {
          if (issued?.at === at) issued = undefined;
        });
      }
      return issued.token;
    },
  };
}
