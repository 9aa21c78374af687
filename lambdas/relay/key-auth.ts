/**
 * API key verification at the relay: identity fails closed (design decision 6, issue 15.5).
 *
 * - A valid key holding the `proxy` scope is forwarded; a valid key without it is refused (403), an
 *   unknown, malformed or revoked key too (401).
 * - When the key store or the pepper cannot be read, only a key this container verified within the last
 *   {@link RECENT_VERIFICATION_WINDOW_MS} is forwarded (its event marked `verified: false`); anything
 *   else is refused with 503 and `Retry-After`. The whole key is matched (by its SHA-256 digest, the key
 *   itself is not kept), so a well-formed guess of a known public id gains nothing.
 *
 * The window bounds how long a revoked key can keep working during a store outage; docs/security.md
 * states it beside the cache TTL that bounds revocation otherwise.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { grantsAny, parseApiKey, type KeyScope } from '../../core/keys';
import type { KeyPrincipal } from '../shared/api-key-auth';

/** What verifies keys: the shared `ApiKeyAuthenticator` (cached reads, constant-time HMAC check). */
export interface KeyVerifier {
  /** The key's owner, undefined for an unknown / malformed / revoked key; rejects when it cannot tell. */
  verify(apiKey: unknown): Promise<KeyPrincipal | undefined>;
}

/** How recent a verification must be for its key to be forwarded while keys cannot be verified. */
export const RECENT_VERIFICATION_WINDOW_MS = 5 * 60_000;

export type KeyCheck =
  | { readonly kind: 'valid'; readonly principal: KeyPrincipal }
  | { readonly kind: 'invalid' }
  /** A valid key without the scope the relay needs (`proxy`). */
  | { readonly kind: 'forbidden'; readonly principal: KeyPrincipal; readonly needed: KeyScope }
  /** The store could not be asked, but this exact key was verified (with `proxy`) within the window. */
  | { readonly kind: 'unverified'; readonly principal: KeyPrincipal }
  /** The store could not be asked and this key was not verified recently: refuse, retry later. */
  | { readonly kind: 'unavailable' };

/** Options of {@link RelayKeyAuth}. */
export interface RelayKeyAuthOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default RECENT_VERIFICATION_WINDOW_MS */
  readonly windowMs?: number;
  /** Most keys remembered; the oldest verification is forgotten first. @default 10_000 */
  readonly maxRemembered?: number;
  /** The scope a key needs here. @default 'proxy' */
  readonly scope?: KeyScope;
}

interface Remembered {
  principal: KeyPrincipal;
  /** SHA-256 of the whole key, so only the same key can reuse the verification (the key is not kept). */
  readonly digest: Buffer;
  verifiedAt: number;
}

const digestOf = (apiKey: string): Buffer => createHash('sha256').update(apiKey, 'utf8').digest();

export class RelayKeyAuth {
  private readonly remembered = new Map<string, Remembered>();
  private readonly now: () => number;
  private readonly windowMs: number;
  private readonly maxRemembered: number;
  private readonly scope: KeyScope;

  constructor(
    private readonly verifier: KeyVerifier,
    options: RelayKeyAuthOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.windowMs = options.windowMs ?? RECENT_VERIFICATION_WINDOW_MS;
    this.maxRemembered = options.maxRemembered ?? 10_000;
    this.scope = options.scope ?? 'proxy';
  }

  async check(apiKey: string | undefined): Promise<KeyCheck> {
    if (apiKey === undefined) return { kind: 'invalid' };
    let principal: KeyPrincipal | undefined;
    try {
      principal = await this.verifier.verify(apiKey);
    } catch {
      const known = this.recall(apiKey);
      return known === undefined ? { kind: 'unavailable' } : { kind: 'unverified', principal: known };
    }
    if (principal === undefined) {
      // Revoked (or never valid): forget any earlier verification of that id at once.
      const parsed = parseApiKey(apiKey);
      if (parsed.ok) this.remembered.delete(parsed.publicId);
      return { kind: 'invalid' };
    }
    if (!grantsAny(principal.scopes, this.scope)) {
      this.remembered.delete(principal.publicId);
      return { kind: 'forbidden', principal, needed: this.scope };
    }
    this.remember(apiKey, principal);
    return { kind: 'valid', principal };
  }

  private remember(apiKey: string, principal: KeyPrincipal): void {
    const known = this.remembered.get(principal.publicId);
    // The hot path: the key is already remembered. Refresh the time in place; its digest is still right
    // (only one key verifies under a public id), so no hash and no map write per call.
    if (known !== undefined) {
      known.verifiedAt = this.now();
      known.principal = principal;
      return;
    }
    if (this.remembered.size >= this.maxRemembered) {
      // The map keeps insertion order: the first entry is the longest remembered.
      this.remembered.delete(this.remembered.keys().next().value as string);
    }
    this.remembered.set(principal.publicId, { principal, digest: digestOf(apiKey), verifiedAt: this.now() });
  }

  private recall(apiKey: string): KeyPrincipal | undefined {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return undefined;
    const known = this.remembered.get(parsed.publicId);
    if (known === undefined) return undefined;
    if (this.now() - known.verifiedAt > this.windowMs) return undefined;
    return timingSafeEqual(known.digest, digestOf(apiKey)) ? known.principal : undefined;
  }
}
