import { parseApiKey, verifyApiKey } from '../../core/keys';
import { httpErrors } from './http';
import type { ApiKeyRecord, ApiKeyStore } from './stores/api-key-store';

/** Who a verified API key belongs to. */
export interface KeyPrincipal {
  orgId: string;
  publicId: string;
  prefix: string;
}

export interface ApiKeyAuthOptions {
  keys: ApiKeyStore;
  pepper: () => Promise<string>;
  /** How long a key record is reused before it is read again; a revocation takes effect within it. */
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
    this.ttl = opts.cacheTtlMs ?? 30_000;
    this.max = opts.maxCacheEntries ?? 10_000;
    this.now = opts.now ?? Date.now;
  }

  /** The key's owner, or undefined for an unknown, malformed or revoked key. Store errors propagate. */
  async verify(apiKey: unknown): Promise<KeyPrincipal | undefined> {
    if (typeof apiKey !== 'string') return undefined;
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return undefined;
    const record = await this.record(parsed.publicId);
    if (!record || record.revokedAt !== null) return undefined;
    if (!verifyApiKey(apiKey, record.hash, await this.opts.pepper())) return undefined;
    return { orgId: record.orgId, publicId: record.publicId, prefix: record.prefix };
  }

  /** Like verify, but a 401 HttpError for anything but a valid key. */
  async require(apiKey: unknown): Promise<KeyPrincipal> {
    const principal = await this.verify(apiKey);
    if (!principal) throw httpErrors.unauthorized('API key is unknown, malformed or revoked');
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
