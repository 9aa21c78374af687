/**
 * Delivery of event batches: `POST <endpoint>/v1/events` with the `Service-API-Key` header, through the
 * ORIGINAL fetch (the SDK never instruments itself), with retries.
 *
 * Retry policy: network errors, timeouts, 408, 429 and 5xx are retried with exponential backoff and full
 * jitter (`random(0, min(maxDelay, base × 2^attempt))`). A `Retry-After` header (seconds or an HTTP date)
 * on 429/503 replaces the computed delay. Other 4xx (400 invalid, 401 key, 413 too large) are final: the
 * batch is discarded, since sending it again cannot succeed. Delays never keep the process alive.
 */
import type { Logger } from './log';
import { readJson, timedRequest } from './http';
import type { FetchLike } from './types';

/** Tunables of {@link postBatch}; the defaults suit production, tests shorten them. */
export interface RetryPolicy {
  /** Attempts in total, first one included. @default 4 */
  readonly maxAttempts: number;
  /** Backoff base in milliseconds. @default 500 */
  readonly baseDelayMs: number;
  /** Longest computed backoff in milliseconds. @default 8000 */
  readonly maxDelayMs: number;
  /** Longest `Retry-After` honoured; a longer one ends this flush (the batch waits for the next). @default 60000 */
  readonly maxRetryAfterMs: number;
  /** Timeout of one attempt in milliseconds. @default 10000 */
  readonly attemptTimeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
  attemptTimeoutMs: 10_000,
};

/** The outcome of one batch. */
export type DeliveryOutcome =
  /** Accepted (2xx); `answer` is the parsed body (`{ status, count, enforcement }`), undefined if unreadable. */
  | { readonly kind: 'sent'; readonly status: number; readonly answer: unknown }
  /** Rejected for good (4xx other than 408/429): do not send again. */
  | { readonly kind: 'rejected'; readonly status: number }
  /** Not delivered after the retries, or out of time: keep the events for a later flush. */
  | { readonly kind: 'retry-later'; readonly reason: string; readonly retryAfterMs?: number };

export interface PostBatchInput {
  readonly fetch: FetchLike;
  readonly url: string;
  readonly apiKey: string;
  readonly body: string;
  readonly policy: RetryPolicy;
  readonly log: Logger;
  /** Absolute deadline (Date.now() ms) after which no new attempt or wait starts. */
  readonly deadline: number;
  /** Browser page going away: `keepalive` lets the request outlive the page. */
  readonly keepalive?: boolean;
  /** Random source for the jitter, [0, 1). @default Math.random */
  readonly random?: () => number;
  /** Waits between attempts; resolves false when the wait was cut short (give up for now). */
  readonly wait: (ms: number) => Promise<boolean>;
}

/** Sends one batch, retrying as described above. Never rejects. */
export async function postBatch(input: PostBatchInput): Promise<DeliveryOutcome> {
  const { policy, log } = input;
  const random = input.random ?? Math.random;
  let lastReason = 'not attempted';
  for (let attempt = 0; attempt < policy.maxAttempts; attempt++) {
    if (Date.now() >= input.deadline) return { kind: 'retry-later', reason: `deadline (${lastReason})` };
    let retryAfterMs: number | undefined;
    try {
      const init: RequestInit & { keepalive?: boolean } = {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'Service-API-Key': input.apiKey },
        body: input.body,
      };
      if (input.keepalive === true) init.keepalive = true;
      const timeout = Math.min(policy.attemptTimeoutMs, input.deadline - Date.now());
      const { status, retryAfter, answer } = await timedRequest(
        input.fetch,
        input.url,
        init,
        timeout,
        async (r) => ({
          status: r.status,
          retryAfter: r.headers.get('retry-after'),
          answer: await readJson(r),
        }),
      );
      if (status >= 200 && status < 300) return { kind: 'sent', status, answer };
      if (!isRetryableStatus(status)) {
        log.warn(`ingest refused a batch: HTTP ${status}`);
        return { kind: 'rejected', status };
      }
      lastReason = `HTTP ${status}`;
      retryAfterMs = parseRetryAfter(retryAfter, Date.now());
    } catch (err) {
      lastReason = err instanceof Error ? err.message : 'network error';
    }
    if (attempt + 1 >= policy.maxAttempts) break;
    let delay: number;
    if (retryAfterMs !== undefined) {
      if (retryAfterMs > policy.maxRetryAfterMs) {
        return { kind: 'retry-later', reason: `${lastReason}, Retry-After ${retryAfterMs} ms`, retryAfterMs };
      }
      delay = retryAfterMs;
    } else {
      delay = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    }
    if (Date.now() + delay >= input.deadline)
      return { kind: 'retry-later', reason: `deadline (${lastReason})` };
    log.debug(`flush retry in ${Math.round(delay)} ms (${lastReason})`);
    if (!(await input.wait(delay))) return { kind: 'retry-later', reason: `interrupted (${lastReason})` };
  }
  return { kind: 'retry-later', reason: lastReason };
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/**
 * `Retry-After` in milliseconds from now: delta-seconds or an HTTP date; undefined when absent or invalid.
 *
 * @example parseRetryAfter('2', now) === 2000
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}
