/**
 * Token buckets per caller (issue 15.11: one tenant's flood must not cost the others). Pure: the time
 * comes in as an argument. Memory is bounded: at most `maxKeys` buckets, the least recently used
 * forgotten first (a forgotten bucket starts full again, which only ever errs towards admitting).
 * @module
 */

/** Options of {@link KeyedTokenBuckets}. */
export interface TokenBucketOptions {
  /** Requests a caller may make at once (the bucket's size). */
  readonly burst: number;
  /** Requests per second a caller may sustain (the refill rate). */
  readonly perSecond: number;
  /** Most callers remembered. @default 10,000 */
  readonly maxKeys?: number;
}

/** The answer for one request: admitted, or refused with the whole seconds to wait. */
export type BucketDecision =
  { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

/** Rounding slack of the fractional refill (far below any real rate's token). */
const TOKEN_EPSILON = 1e-9;

interface Bucket {
  tokens: number;
  atMs: number;
}

/**
 * One token bucket per key.
 *
 * @example
 * const buckets = new KeyedTokenBuckets({ burst: 40, perSecond: 20 });
 * buckets.take('key_1', Date.now()) // { allowed: true }
 */
export class KeyedTokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxKeys: number;

  constructor(private readonly opts: TokenBucketOptions) {
    if (!(opts.burst >= 1) || !(opts.perSecond > 0))
      throw new RangeError('burst ≥ 1 and perSecond > 0 required');
    this.maxKeys = opts.maxKeys ?? 10_000;
  }

  /** Takes one token from `key`'s bucket at time `nowMs`, if it has one. */
  take(key: string, nowMs: number): BucketDecision {
    const { burst, perSecond } = this.opts;
    const held = this.buckets.get(key);
    let bucket: Bucket;
    if (held === undefined) {
      bucket = { tokens: burst, atMs: nowMs };
      if (this.buckets.size >= this.maxKeys) {
        const oldest = this.buckets.keys().next().value;
        if (oldest !== undefined) this.buckets.delete(oldest);
      }
    } else {
      this.buckets.delete(key); // re-inserted below: Map order is recency order
      const elapsed = Math.max(0, nowMs - held.atMs) / 1000;
      bucket = {
        tokens: Math.min(burst, held.tokens + elapsed * perSecond),
        atMs: Math.max(nowMs, held.atMs),
      };
    }
    this.buckets.set(key, bucket);
    // A token earned in several fractional steps (1/6 + 4.999/6 + 0.001/6) can fall a hair short of 1.
    if (bucket.tokens >= 1 - TOKEN_EPSILON) {
      bucket.tokens = Math.max(0, bucket.tokens - 1);
      return { allowed: true };
    }
    // Whole milliseconds first: (1 − 1/6) / (1/6) is 5.000000000000001 in floating point, not 5.
    const waitMs = Math.round(((1 - bucket.tokens) / perSecond) * 1000);
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  /** Callers currently remembered. */
  get size(): number {
    return this.buckets.size;
  }
}
