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

import { KeyedTokenBuckets } from '../../core/rate-limit/token-bucket';

/** Token bucket parameters. */
export interface ThrottlePolicy {
  /** Requests a key may send back to back. @default 1 */
  readonly capacity: number;
  /** One request is earned back every this many ms. @default 6000 */
  readonly refillIntervalMs: number;
}

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = Object.freeze({ capacity: 1, refillIntervalMs: 6000 });

/**
 * The per-key token buckets of a THROTTLED flag (core/rate-limit, the one token bucket of the codebase):
 * `capacity` at once, then one request per `refillIntervalMs`, at most `maxKeys` keys remembered.
 */
export function throttleBuckets(
  policy: ThrottlePolicy = DEFAULT_THROTTLE_POLICY,
  maxKeys = 10_000,
): KeyedTokenBuckets {
  return new KeyedTokenBuckets({
    burst: Math.max(1, Math.floor(policy.capacity)),
    perSecond: 1000 / Math.max(1, policy.refillIntervalMs),
    maxKeys,
  });
}
