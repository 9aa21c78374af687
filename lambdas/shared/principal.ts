import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { KeyScope } from '../../core/keys/scopes';
import { GROUPS_CLAIM, roleOf, type Role } from '../../core/roles';
import { httpErrors } from './http';
import type { IdTokenVerifier, Services } from './services';

/** Who is calling: a person (ID token) or a program (API key), and always their organization. */
export type Principal =
  | { kind: 'person'; orgId: string; sub: string; email: string | null; role: Role }
  | { kind: 'program'; orgId: string; keyId: string; scopes: readonly KeyScope[] };

/** The Cognito custom attribute carrying a user's organization (set by an administrator, not writable by the user). */
export const ORG_CLAIM = 'custom:orgId';

function bearer(event: APIGatewayProxyEventV2): string | undefined {
  const h = event.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)$/i.exec(h);
  return m?.[1];
}

/**
 * A person from the `Authorization: Bearer <ID token>` header, verified with aws-jwt-verify (issuer,
 * audience, expiry, signature, token_use id) — in AWS the HTTP API's JWT authorizer has checked it too.
 * Their role comes from the token's `cognito:groups` (core/roles); the organization's first person is
 * recorded as its owner, who is `admin` while in no group.
 */
export async function requirePerson(
  event: APIGatewayProxyEventV2,
  verifier: IdTokenVerifier,
  services: Pick<Services, 'owners' | 'audit' | 'now'>,
): Promise<Principal & { kind: 'person' }> {
  const token = bearer(event);
  if (!token) throw httpErrors.unauthorized('Authorization: Bearer <ID token> is required');
  let claims: Record<string, unknown>;
  try {
    claims = await verifier.verify(token);
  } catch {
    throw httpErrors.unauthorized('ID token is invalid or expired');
  }
  const orgId = claims[ORG_CLAIM];
  if (typeof orgId !== 'string' || orgId.length === 0) {
    throw httpErrors.forbidden(`ID token carries no ${ORG_CLAIM} claim; the user belongs to no organization`);
  }
  const sub = String(claims.sub);
  const email = typeof claims.email === 'string' ? claims.email : null;
  const at = new Date(services.now()).toISOString();
  const owner = await services.owners.claim(orgId, { sub, email }, at);
  const role = roleOf(claims[GROUPS_CLAIM], owner.sub === sub);
  if (owner.claimed) {
    await services.audit.record(orgId, {
      action: 'owner.claimed',
      actor: { kind: 'person', sub, email, role },
      target: null,
      before: null,
      after: { sub, email },
      at,
    });
  }
  return { kind: 'person', orgId, sub, email, role };
}

/**
 * A person (ID token) or, where programs may call (`keyScopes` not null), a program (`Service-API-Key`)
 * whose key holds one of `keyScopes` (403 `scope_missing` otherwise). Without any credential the 401
 * names the one the route takes: only a key where `programsOnly` (the route refuses people itself).
 */
export async function requirePrincipal(
  event: APIGatewayProxyEventV2,
  services: Pick<Services, 'apiKeys' | 'owners' | 'audit' | 'now'>,
  verifier: IdTokenVerifier,
  keyScopes: readonly KeyScope[] | null,
  programsOnly = false,
): Promise<Principal> {
  const key = event.headers['service-api-key'];
  if (keyScopes !== null && key === undefined && !event.headers.authorization) {
    throw httpErrors.unauthorized(
      programsOnly
        ? 'Service-API-Key is required (this route is for programs)'
        : 'Service-API-Key or Authorization: Bearer <ID token> is required',
    );
  }
  if (keyScopes !== null && key !== undefined && !event.headers.authorization) {
    const p = await services.apiKeys.require(key, keyScopes);
    return { kind: 'program', orgId: p.orgId, keyId: p.publicId, scopes: p.scopes };
  }
  return requirePerson(event, verifier, services);
}
