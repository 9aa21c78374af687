/**
 * The CloudFront origin secret at an origin CloudFront fronts (the relay, and the HTTP API when its WAF
 * is on): a request is accepted only with the secret in `x-spendguard-origin-secret` (compared in
 * constant time). Identity fails closed (design decision 6, issue 19.5): while the secret cannot be read
 * the origin cannot tell a call through CloudFront (and its guard or web ACL) from one that bypasses it,
 * so it answers `unavailable` (503) rather than letting anyone through.
 */
import { constantTimeEqual } from '../../core/keys';
import { headerValue, ORIGIN_SECRET_HEADER, type HeaderBag } from '../relay/headers';
import type { VersionedSecretSource } from './secrets';

/**
 * Shortest time between two re-reads of the origin secret after a mismatch: after a rotation a warm relay
 * recovers on the first request with the new header; a stream of wrong headers costs at most one read
 * (two GetSecretValue calls) per interval per container.
 */
export const ORIGIN_SECRET_REFRESH_INTERVAL_MS = 10_000;
/** Shortest time between two reads of an origin secret that could not be read (requests get 503 meanwhile). */
export const ORIGIN_SECRET_RETRY_MS = 1_000;

/** One fixed value, or the accepted versions of a rotated secret (current, previous). */
export type OriginSecretSource = (() => Promise<string>) | VersionedSecretSource;

/** The origin check of one origin container (a relay, an API function). */
export class OriginCheck {
  /** The accepted values, once read. */
  private secrets: readonly string[] | undefined;
  /** When the secret was last re-read because of a mismatch (rate limit). */
  private refreshedAt = Number.NEGATIVE_INFINITY;
  /** When the first read last failed. */
  private failedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly source: OriginSecretSource,
    private readonly deps: {
      readonly now: () => number;
      /** Counts a request answered `unavailable` (the caller's metric). */
      readonly onUnavailable: () => void;
    },
  ) {}

  /** true: the header carries the secret; false: it does not; `unavailable`: the secret cannot be read. */
  async allowed(headers: HeaderBag): Promise<boolean | 'unavailable'> {
    const presented = headerValue(headers, ORIGIN_SECRET_HEADER);
    const matches = (values: readonly string[]) =>
      presented !== undefined && values.some((v) => constantTimeEqual(presented, v));
    if (this.secrets === undefined) {
      // While the secret cannot be read, one read per second at most: the 503s cost no Secrets Manager call.
      const now = this.deps.now();
      if (now - this.failedAt < ORIGIN_SECRET_RETRY_MS) return this.unavailable();
      try {
        this.secrets = await this.read(false);
      } catch {
        this.failedAt = now;
        return this.unavailable();
      }
    }
    if (matches(this.secrets)) return true;
    // A mismatch may mean the secret was rotated since this container read it: re-read, rate-limited so
    // that requests with a wrong header cannot turn into a flood of Secrets Manager calls.
    const now = this.deps.now();
    if (presented === undefined || now - this.refreshedAt < ORIGIN_SECRET_REFRESH_INTERVAL_MS) return false;
    this.refreshedAt = now;
    try {
      this.secrets = await this.read(true);
    } catch {
      return false; // the cached values stay; a read failure is no reason to admit a wrong header
    }
    return matches(this.secrets);
  }

  private unavailable(): 'unavailable' {
    this.deps.onUnavailable();
    return 'unavailable';
  }

  private async read(refresh: boolean): Promise<readonly string[]> {
    if (typeof this.source === 'function') return [await this.source()];
    return this.source.accepted(refresh);
  }
}
