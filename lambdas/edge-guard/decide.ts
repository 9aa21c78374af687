/**
 * The guard's decision, pure: a flag lookup result and the clock in, "forward" or a ready response out.
 * The CloudFront adapter and the local proxy both run it, so the 429 contract is written once.
 */
import {
  isExpired,
  outranks,
  parseFlagItem,
  type FlagRecord,
  type FlagScope,
} from '../shared/stores/flag-store';
import type { KeyedTokenBuckets } from '../../core/rate-limit/token-bucket';

/** Why a request went through unchecked (the `Reason` of the `GuardFailOpen` metric). */
export type FailOpenReason =
  /** The flag store could not be read (error or timeout). */
  | 'store_error'
  /** The flag item exists but is not a valid flag. */
  | 'bad_flag_item'
  /** The pepper secret could not be read, so no flag key could be derived. */
  | 'secret_error'
  /** The baked-in configuration is missing or invalid. */
  | 'config_error'
  /** Anything else that threw. */
  | 'internal_error';

/** A flag store answer: an item (valid or not), no item, or a failure. */
export type FlagLookup = FlagRecord | undefined | 'error' | { readonly invalid: unknown };

/** Classifies a raw store item. */
export function toFlagLookup(item: unknown): FlagLookup {
  if (item === undefined || item === null) return undefined;
  return parseFlagItem(item) ?? { invalid: item };
}

/**
 * Classifies the items of one request's key and session (key, organization and session scope): the
 * strongest unexpired valid flag wins; an invalid item counts only when no valid flag applies.
 */
export function toFlagLookupOfItems(items: readonly unknown[], nowMs: number): FlagLookup {
  let best: FlagRecord | undefined;
  let invalid: { readonly invalid: unknown } | undefined;
  for (const item of items) {
    if (item === undefined || item === null) continue;
    const flag = parseFlagItem(item);
    if (flag === undefined) invalid ??= { invalid: item };
    else if (!isExpired(flag, nowMs) && (best === undefined || outranks(flag, best))) best = flag;
  }
  return best ?? invalid;
}

/** A response the guard sends instead of forwarding. Header names are lowercase. */
export interface GuardResponse {
  readonly status: number;
  readonly statusDescription: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export type GuardDecision =
  | { readonly action: 'forward'; readonly failOpen?: FailOpenReason; readonly throttled?: boolean }
  | {
      readonly action: 'respond';
      readonly reason: 'suspended' | 'throttled' | 'unauthorized';
      readonly response: GuardResponse;
    };

export const FORWARD: GuardDecision = Object.freeze({ action: 'forward' });

/** What {@link decide} needs besides the flag. */
export interface DecideContext {
  /** Token buckets for THROTTLED keys. */
  readonly limiter: KeyedTokenBuckets;
  /**
   * The bucket key. @default the flag's item key, so a throttled session is metered apart from its
   * key's other sessions (item keys are opaque: no raw key or session id).
   */
  readonly bucketKey?: string;
}

/**
 * The decision for one request.
 *
 * - no flag, or a flag whose `expiresAt` has passed (TTL deletes lazily) → forward;
 * - SUSPENDED → 429 `budget_exceeded` with `Retry-After` = seconds until the flag expires and
 *   `x-should-retry: false`, so the official SDKs do not retry;
 * - THROTTLED → forward while the key's token bucket has a token, else 429 `rate_limited` with
 *   `Retry-After` = seconds until the next token (retrying then is welcome: THROTTLED slows, it does not stop);
 * - store failure → forward (fail open, `store_error`); an invalid item → forward (`bad_flag_item`).
 *
 * @example
 * decide({ ...flag, state: 'SUSPENDED', expiresAt: now / 1000 + 90 }, now, ctx)
 * // { action: 'respond', reason: 'suspended', response: { status: 429, headers: { 'retry-after': '90', … } } }
 */
export function decide(flag: FlagLookup, nowMs: number, ctx: DecideContext): GuardDecision {
  if (flag === undefined) return FORWARD;
  if (flag === 'error') return { action: 'forward', failOpen: 'store_error' };
  if ('invalid' in flag) return { action: 'forward', failOpen: 'bad_flag_item' };
  if (isExpired(flag, nowMs)) return FORWARD;
  if (flag.state === 'SUSPENDED') {
    const seconds = Math.max(1, Math.ceil((flag.expiresAt * 1000 - nowMs) / 1000));
    return { action: 'respond', reason: 'suspended', response: budgetExceeded(flag, seconds) };
  }
  const taken = ctx.limiter.take(ctx.bucketKey ?? flag.flagKey, nowMs);
  if (taken.allowed) return { action: 'forward', throttled: true };
  return { action: 'respond', reason: 'throttled', response: rateLimited(flag, taken.retryAfterSeconds) };
}

const JSON_HEADERS = { 'content-type': 'application/json', 'cache-control': 'no-store' } as const;

/** OpenAI's error shape `{ error: { message, type, code } }`, which both official SDKs surface. */
function errorBody(message: string, type: string, code: string | null): string {
  return JSON.stringify({ error: { message, type, code } });
}

/** What a flag of each scope stops, as the 429 message says it. */
const STOPPED: Readonly<Record<FlagScope, string>> = {
  organization: "this organization's requests are",
  key: 'requests with this API key are',
  session: 'requests of this agent session (x-spendguard-session) are',
};

/** 429 for a SUSPENDED key: the contract of spec 1.5 / 7 and design decision 7. */
export function budgetExceeded(flag: FlagRecord, retryAfterSeconds: number): GuardResponse {
  const until = new Date(flag.expiresAt * 1000).toISOString();
  return {
    status: 429,
    statusDescription: 'Too Many Requests',
    headers: { ...JSON_HEADERS, 'retry-after': String(retryAfterSeconds), 'x-should-retry': 'false' },
    body: errorBody(
      `Budget Exceeded: ${STOPPED[flag.scope]} suspended by a Spendguard guardrail ` +
        `(${flag.triggerType}) until ${until}. Clear the flag in the dashboard to resume sooner.`,
      'budget_exceeded',
      flag.triggerType,
    ),
  };
}

/** 429 for a THROTTLED key that has used its allowance. */
export function rateLimited(flag: FlagRecord, retryAfterSeconds: number): GuardResponse {
  return {
    status: 429,
    statusDescription: 'Too Many Requests',
    headers: { ...JSON_HEADERS, 'retry-after': String(retryAfterSeconds) },
    body: errorBody(
      `Rate limited: ${STOPPED[flag.scope]} throttled by a Spendguard guardrail (${flag.triggerType}); ` +
        `retry after ${retryAfterSeconds} s.`,
      'rate_limited',
      flag.triggerType,
    ),
  };
}

/** 401 for a request without a well-formed `Service-API-Key`. */
export const MISSING_KEY_RESPONSE: GuardResponse = Object.freeze({
  status: 401,
  statusDescription: 'Unauthorized',
  headers: { ...JSON_HEADERS, 'x-should-retry': 'false' },
  body: errorBody(
    'Missing or malformed Service-API-Key header: send your Spendguard API key (abn_…) in it.',
    'invalid_request_error',
    'invalid_service_api_key',
  ),
});

export const UNAUTHORIZED_DECISION: GuardDecision = Object.freeze({
  action: 'respond',
  reason: 'unauthorized',
  response: MISSING_KEY_RESPONSE,
});
