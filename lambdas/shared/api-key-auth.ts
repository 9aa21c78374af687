import { grantsAny, parseApiKey, scopesOf, verifyApiKey, type KeyScope } from '../../core/keys';
import { httpErrors } from './http';
import type { ApiKeyRecord, ApiKeyStore } from './stores/api-key-store';

/** Who a verified API key belongs to, and what it may do. */
export interface KeyPrincipal {
  orgId: string;
  publicId: string;
  prefix: string;
  /** The key's scopes (core/keys/scopes): every scope for a key stored without a list. */
  scopes: readonly KeyScope[];
}

/**
 * How long a key record is reused before it is read again: the bound on how late a revocation made in
 * another process (the API) reaches this one (docs/security.md, "Revocation delay").
 */
export const KEY_CACHE_TTL_MS = 30_000;

/** What `Retry-After` says when keys cannot be verified (the store or the pepper cannot be read). */
export const AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

export interface ApiKeyAuthOptions {
  keys: ApiKeyStore;
  pepper: () => Promise<string>;
  /** How long a key record is reused before it is read again. @default KEY_CACHE_TTL_MS */
  cacheTtlMs?: number;
  maxCacheEntries?: number;
  now?: () => number;
}

/**
 * Verifies `abn_…` keys against their stored HMAC (constant-time), with a short cache of key records so
 * that a busy key costs one read per TTL. Unknown, malformed and revoked keys are indistinguishable to the
 * caller (401), so the endpoint does not reveal which public ids exist.
 */
export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { record: ApiKeyRecord | undefined; at: number }>();
  private readonly ttl: number;
  private readonly max: number;
  private readonly now: () => number;

  constructor(private readonly opts: ApiKeyAuthOptions) {
    this.ttl = opts.cacheTtlMs ?? KEY_CACHE_TTL_MS;
    this.max = opts.maxCacheEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /**
   * The key's owner and scopes, or undefined for an unknown, malformed or revoked key. Rejects when it
   * cannot tell (the store or the pepper cannot be read): callers fail closed on that.
   */
  async verify(apiKey: unknown): Promise<KeyPrincipal | undefined> {
    if (typeof apiKey !== 'string') return undefined;
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return undefined;
    const record = await this.record(parsed.publicId);
    if (!record || record.revokedAt !== null) return undefined;
    if (!verifyApiKey(apiKey, record.hash, await this.opts.pepper())) return undefined;
    return {
      orgId: record.orgId,
      publicId: record.publicId,
      prefix: record.prefix,
      scopes: scopesOf(record.scopes),
    };
  }

  /**
   * The principal of a valid key that holds at least one of `needed`. Throws an HttpError: 401 for
   * anything but a valid key, 403 `scope_missing` for a valid key without the scope, 503 with
   * `Retry-After` when keys cannot be verified right now (never a guess: decision 6, identity fails closed).
   */
  async require(apiKey: unknown, needed: KeyScope | readonly KeyScope[]): Promise<KeyPrincipal> {
    let principal: KeyPrincipal | undefined;
    try {
      principal = await this.verify(apiKey);
    } catch {
      throw httpErrors.unavailable(
        'API keys cannot be verified right now; retry later',
        AUTH_UNAVAILABLE_RETRY_AFTER_SECONDS,
      );
    }
    if (!principal) throw httpErrors.unauthorized('API key is unknown, malformed or revoked');
    if (!grantsAny(principal.scopes, needed)) throw scopeMissing(needed);
    return principal;
  }

  /** Forget a key at once (after revocation in this process). */
  invalidate(publicId: string): void {
    this.cache.delete(publicId);
  }

  private async record(publicId: string): Promise<ApiKeyRecord | undefined> {
    const now = this.now();
    const hit = this.cache.get(publicId);
    if (hit && now - hit.at < this.ttl) return hit.record;
    const record = await this.opts.keys.get(publicId);
    if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(publicId, { record, at: now });
    return record;
  }
}

/** The 403 of a key without the scope a route needs, naming the scope(s) that would do. */
export function scopeMissing(needed: KeyScope | readonly KeyScope[]) {
  const names = typeof needed === 'string' ? [needed] : needed;
  const list = names.map((s) => `'${s}'`).join(' or ');
  return httpErrors.scopeMissing(
    `this API key lacks the ${list} scope; create a key with it (POST /v1/keys { name, scopes })`,
  );
}
