/**
 * What a THROTTLED flag does at the edge (the spec leaves it open): each key may send
 * {@link ThrottlePolicy.capacity} requests at once and then one request per
 * {@link ThrottlePolicy.refillIntervalMs}; the excess is answered 429 `rate_limited` with `Retry-After`.
 *
 * The default — a burst of 1 and one request every 6 s — is 10 requests a minute, the rate guardrail
 * layer 4 allows a key, so a throttled agent keeps working at a pace that cannot trip layer 4 again.
 * The bucket lives in one edge container (one Lambda@Edge execution environment, or the one local
 * proxy process): CloudFront may run several containers per edge location, so the real ceiling is the
 * policy rate times the containers serving the key. It is a brake, not an exact quota.
 */

/** Token bucket parameters. */
export interface ThrottlePolicy {
  /** Requests a key may send back to back. @default 1 */
  readonly capacity: number;
  /** One request is earned back every this many ms. @default 6000 */
  readonly refillIntervalMs: number;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = Object.freeze({ capacity: 1, refillIntervalMs: 6000 });

/** The outcome of {@link TokenBucketLimiter.take}. */
export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets per key, bounded in number (the least recently used key is forgotten first; a
 * forgotten key starts again with a full bucket, which errs on the side of letting requests through).
 */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly capacity: number;
  private readonly interval: number;

  constructor(
    policy: ThrottlePolicy = DEFAULT_THROTTLE_POLICY,
    private readonly maxKeys = 10_000,
  ) {
    this.capacity = Math.max(1, Math.floor(policy.capacity));
    this.interval = Math.max(1, policy.refillIntervalMs);
  }

  /** Takes one token for `key` at `nowMs`, or says how long until one is available. */
  take(key: string, nowMs: number): TakeResult {
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.capacity, at: nowMs };
      if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    } else {
      this.buckets.delete(key); // re-inserted below: Map order doubles as recency order
      const elapsed = Math.max(0, nowMs - bucket.at);
      const earned = Math.floor(elapsed / this.interval);
      if (earned > 0) {
        bucket.tokens = Math.min(this.capacity, bucket.tokens + earned);
        bucket.at = bucket.tokens === this.capacity ? nowMs : bucket.at + earned * this.interval;
      }
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      if (bucket.tokens === this.capacity) bucket.at = nowMs;
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.max(1, bucket.at + this.interval - nowMs) };
  }

  /** Number of keys tracked. */
  get size(): number {
    return this.buckets.size;
  }
}
