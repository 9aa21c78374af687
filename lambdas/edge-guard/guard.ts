/**
 * The edge guard: API key header → flag key → (cached) flag → decision. Runs in Lambda@Edge
 * (cloudfront-adapter.ts) and in the local proxy, with the same code and the same answers.
 */
import { flagKeyFor, parseApiKey } from '../../core/keys';
import { guardItemKeys, sessionOfHeader } from '../shared/flag-item-keys';
import type { FlagStore } from '../shared/stores/flag-store';
import {
  decide,
  FORWARD,
  toFlagLookupOfItems,
  UNAUTHORIZED_DECISION,
  type DecideContext,
  type FailOpenReason,
  type FlagLookup,
  type GuardDecision,
} from './decide';
import { FlagCache } from './flag-cache';
import { FLAG_CACHE_TTL_MS } from '../shared/flag-propagation';
import { noopMetrics, type MetricsSink } from './metrics';
import type { KeyedTokenBuckets } from '../../core/rate-limit/token-bucket';
import { throttleBuckets, type ThrottlePolicy } from './throttle';

/**
 * Reads flag items by item key in one round trip: the raw items found (validated by the guard), in any
 * order, without the keys that hold none.
 */
export interface FlagSource {
  getMany(flagKeys: readonly string[]): Promise<readonly unknown[]>;
}

/** A {@link FlagSource} over the shared {@link FlagStore} (the local proxy; already-validated items). */
export function flagSourceFromStore(store: FlagStore, now: () => number = Date.now): FlagSource {
  return { getMany: (flagKeys) => store.getMany(flagKeys, now()) };
}

/** Options of {@link EdgeGuard}. */
export interface EdgeGuardOptions {
  readonly flags: FlagSource;
  /** The server pepper (read once; a failure is retried on the next request). */
  readonly pepper: () => Promise<string>;
  readonly metrics?: MetricsSink;
  readonly now?: () => number;
  /** Lifetime of a cached lookup (flag, no flag, or failure) of one key and session. @default 1000 */
  readonly cacheTtlMs?: number;
  /** (Key, session) pairs whose lookups are cached. @default 10000 */
  readonly cacheMaxEntries?: number;
  /** What THROTTLED allows. @default DEFAULT_THROTTLE_POLICY (1 request / 6 s per key) */
  readonly throttle?: ThrottlePolicy;
  /** A flag read slower than this counts as a failure (fail open). @default 1000 */
  readonly lookupTimeoutMs?: number;
}

/** The guards' cache lifetime, which the enforcement call's wait is derived from (flag-propagation.ts). */
export const DEFAULT_GUARD_CACHE_TTL_MS = FLAG_CACHE_TTL_MS;

/**
 * Decides, before any provider contact, whether a request may go on.
 *
 * @example
 * const guard = new EdgeGuard({ flags, pepper: async () => pepper });
 * const decision = await guard.check(headers['service-api-key'], headers['x-spendguard-session']);
 * if (decision.action === 'respond') return send(decision.response); // 429 or 401
 */
export class EdgeGuard {
  private readonly cache: FlagCache;
  private readonly limiter: KeyedTokenBuckets;
  private readonly metrics: MetricsSink;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  /** prefix → flag key, so the HMAC is computed once per key prefix. */
  private readonly flagKeys = new Map<string, string>();
  private readonly maxKeys: number;
  private pepper: string | undefined;
  /** One context for every decision (the bucket is the deciding flag's item key). */
  private readonly decideContext: DecideContext;

  constructor(private readonly opts: EdgeGuardOptions) {
    this.maxKeys = opts.cacheMaxEntries ?? 10_000;
    this.cache = new FlagCache(opts.cacheTtlMs ?? DEFAULT_GUARD_CACHE_TTL_MS, this.maxKeys);
    this.limiter = throttleBuckets(opts.throttle, this.maxKeys);
    this.decideContext = { limiter: this.limiter };
    this.metrics = opts.metrics ?? noopMetrics;
    this.now = opts.now ?? Date.now;
    this.timeoutMs = opts.lookupTimeoutMs ?? 1000;
  }

  /**
   * The decision for a request carrying `apiKey` (the `Service-API-Key` header value) in `session` (the
   * `x-spendguard-session` header value, if any): the key's organization-, key- and session-scope flags,
   * read in one round trip and cached per (key, session). Never throws: any internal failure forwards
   * the request and counts `GuardFailOpen`.
   */
  async check(
    apiKey: string | readonly string[] | undefined,
    session?: string | readonly string[],
  ): Promise<GuardDecision> {
    try {
      const fast = this.checkCached(apiKey, session);
      if (fast !== undefined) return fast;
      const flagKey = await this.flagKeyOf(apiKey);
      if (typeof flagKey !== 'string') return this.record(flagKey);
      const sessionId = sessionOfHeader(session);
      const now = this.now();
      const lookup = await this.cache.get(cacheKeyOf(flagKey, sessionId), now, () =>
        this.load(flagKey, sessionId),
      );
      return this.record(decide(lookup, this.now(), this.decideContext));
    } catch {
      return this.record({ action: 'forward', failOpen: 'internal_error' });
    }
  }

  /**
   * The decision without waiting, when everything it needs is in memory (pepper loaded, flag key known,
   * lookup cached); undefined otherwise. `check` tries this first; the local proxy calls it directly.
   */
  checkCached(
    apiKey: string | readonly string[] | undefined,
    session?: string | readonly string[],
  ): GuardDecision | undefined {
    try {
      if (typeof apiKey !== 'string') return this.record(UNAUTHORIZED_DECISION);
      if (this.pepper === undefined) return undefined;
      const flagKey = this.flagKeyFromPepper(apiKey, this.pepper);
      if (flagKey === undefined) return this.record(UNAUTHORIZED_DECISION);
      const now = this.now();
      const hit = this.cache.peek(cacheKeyOf(flagKey, sessionOfHeader(session)), now);
      if (hit === undefined) return undefined;
      if (hit.value === undefined) return FORWARD;
      return this.record(decide(hit.value, now, this.decideContext));
    } catch {
      return this.record({ action: 'forward', failOpen: 'internal_error' });
    }
  }

  private async flagKeyOf(apiKey: string | readonly string[] | undefined): Promise<string | GuardDecision> {
    if (typeof apiKey !== 'string') return UNAUTHORIZED_DECISION;
    // Malformed keys are refused before the secret is needed.
    if (!parseApiKey(apiKey).ok) return UNAUTHORIZED_DECISION;
    let pepper = this.pepper;
    if (pepper === undefined) {
      try {
        pepper = await this.opts.pepper();
        if (typeof pepper !== 'string' || pepper.length === 0) throw new Error('empty pepper');
        this.pepper = pepper;
      } catch {
        return { action: 'forward', failOpen: 'secret_error' };
      }
    }
    return this.flagKeyFromPepper(apiKey, pepper) ?? UNAUTHORIZED_DECISION;
  }

  private flagKeyFromPepper(apiKey: string, pepper: string): string | undefined {
    const parsed = parseApiKey(apiKey);
    if (!parsed.ok) return undefined;
    const prefix = `abn_${parsed.publicId}`;
    let flagKey = this.flagKeys.get(prefix);
    if (flagKey === undefined) {
      flagKey = flagKeyFor(prefix, pepper);
      if (this.flagKeys.size >= this.maxKeys)
        this.flagKeys.delete(this.flagKeys.keys().next().value as string);
      this.flagKeys.set(prefix, flagKey);
    }
    return flagKey;
  }

  private async load(flagKey: string, sessionId: string | undefined): Promise<FlagLookup> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'error'>((resolve) => {
      timer = setTimeout(() => resolve('error'), this.timeoutMs);
      timer.unref?.();
    });
    try {
      const read = this.opts.flags.getMany(guardItemKeys(flagKey, sessionId)).then(
        (items) => toFlagLookupOfItems(items, this.now()),
        () => 'error' as const,
      );
      return await Promise.race([read, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private record(decision: GuardDecision): GuardDecision {
    if (decision.action === 'forward') {
      if (decision.failOpen !== undefined) this.countFailOpen(decision.failOpen);
    } else {
      this.metrics.count('GuardRejected', { Reason: decision.reason });
    }
    return decision;
  }

  private countFailOpen(reason: FailOpenReason): void {
    this.metrics.count('GuardFailOpen', { Reason: reason });
  }
}

/**
 * The cache key of a (key, session) pair: the flag key alone without a session (no allocation on the
 * common path), else flag key and session id. Flag keys are 64 hex characters, so the pair is unambiguous.
 */
function cacheKeyOf(flagKey: string, sessionId: string | undefined): string {
  return sessionId === undefined ? flagKey : flagKey + sessionId;
}
