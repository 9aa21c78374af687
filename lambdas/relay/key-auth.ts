/**
 * API key verification at the relay. A valid key yields its organization; an unknown, malformed or
 * revoked key is refused (401). When the key store or the pepper cannot be read, the request is not
 * refused (design decision 6): it is forwarded and its event marked `verified: false`, attributed to
 * the organization this container last verified the same key for (if any).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parseApiKey } from '../../core/keys';
import type { KeyPrincipal } from '../shared/api-key-auth';

/** What verifies keys: the shared `ApiKeyAuthenticator` (cached reads, constant-time HMAC check). */
export interface KeyVerifier {
  /** The key's owner, undefined for an unknown / malformed / revoked key; rejects when it cannot tell. */
  verify(apiKey: unknown): Promise<KeyPrincipal | undefined>;
}

export type KeyCheck =
  | { readonly kind: 'valid'; readonly principal: KeyPrincipal }
  | { readonly kind: 'invalid' }
  /** The store could not be asked; `principal` is the last verified owner of this exact key, if known. */
  | { readonly kind: 'unverified'; readonly principal: KeyPrincipal | undefined };

interface Remembered {
  readonly principal: KeyPrincipal;
  /** SHA-256 of the whole key, so only the same key can reuse the attribution (the key is not kept). */
  readonly digest: Buffer;
}

const digestOf = (apiKey: string): Buffer => createHash('sha256').update(apiKey, 'utf8').digest();

export class RelayKeyAuth {
  private readonly remembered = new Map<string, Remembered>();

  constructor(
    private readonly verifier: KeyVerifier,
    private readonly maxRemembered = 10_000,
  ) {}

  async check(apiKey: string | undefined): Promise<KeyCheck> {
    if (apiKey === undefined) return { kind: 'invalid' };
    let principal: KeyPrincipal | undefined;
    try {
      principal = await this.verifier.verify(apiKey);
    } catch {
      return { kind: 'unverified', principal: this.recall(apiKey) };
    }
    if (principal === undefined) return { kind: 'invalid' };
    if (!this.remembered.has(principal.publicId)) {
      if (this.remembered.size >= this.maxRemembered) {
        this.remembered.delete(this.remembered.keys().next().value as string);
      }
      this.remembered.set(principal.publicId, { principal, digest: digestOf(apiKey) });
    }
    return { kind: 'valid', principal };
  }

  private recall(apiKey: string): KeyPrincipal | undefined {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return undefined;
    const known = this.remembered.get(parsed.publicId);
    if (known === undefined) return undefined;
    return timingSafeEqual(known.digest, digestOf(apiKey)) ? known.principal : undefined;
  }
}
