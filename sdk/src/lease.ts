/**
 * The SDK's share of the organization's hard budget (design decision 12, CONTRACTS §2): a slice of the
 * cap the server lends this process through `POST /v1/budget/lease`, drawn down by the cost of each
 * direct-to-provider call and renewed off the call path before it runs out.
 *
 * Pure state machine (time comes in as arguments); the requests are made by the client.
 *
 * - A call reads {@link BudgetLease.admit} only: a few comparisons, no request, no wait.
 * - `capped: false` (no hard cap): everything is admitted; the lease only reports consumption.
 * - Capped: a call is admitted while the slice's consumption is below the slice, so a sequential holder
 *   overshoots its slice by at most the one call that crosses it (concurrent callers: the calls in flight
 *   at that moment). Renewal starts, off the call path, when half of the slice is used or two thirds of
 *   its lifetime have passed. A call that finds the slice used up before the renewal answered gets a
 *   retryable 429 (`Retry-After: 1`, code `budget_lease_pending`); after a slice lapsed unused (an idle
 *   caller), one call is admitted on credit while the next slice is taken.
 * - `exhausted: true`: every call is refused until `retryAfterSeconds` (the period's end) or a later answer.
 * - Backend unreachable (network error, timeout, 5xx), the routes missing (404) or the key refused
 *   (401/403): fail open (spec Law 4) once the held slice has expired, counting each call let through.
 */
import { nanosToUsd, usdToNanos } from '../../core/pricing/money';

/** A parsed lease answer. */
export interface LeaseAnswer {
  readonly capped: boolean;
  readonly exhausted: boolean;
  readonly grantedNanos: number;
  /** How long the answer holds, in ms (from `ttlSeconds`, else `expiresAt`). */
  readonly ttlMs: number;
  readonly retryAfterSeconds: number | null;
}

/** What {@link BudgetLease.admit} decides for one call. */
export type LeaseDecision =
  null | { readonly kind: 'exhausted'; readonly retryAfterSeconds: number } | { readonly kind: 'pending' };

/** Why a lease request failed. */
export type LeaseFailure = 'unreachable' | 'unsupported' | 'refused';

/** The holder's state, for stats and docs. */
export type LeaseMode = 'none' | 'uncapped' | 'capped' | 'exhausted' | LeaseFailure;

/** The body of a lease request. */
export interface LeaseRequest {
  readonly holderId: string;
  readonly consumedUsd: number;
  readonly spendRateUsdPerMin?: number;
}

const DEFAULT_TTL_MS = 30_000;
/** Longest wait between attempts while the backend fails (it doubles from 1 s). */
const MAX_BACKOFF_MS = 30_000;
/** Wait before asking again after 404 (no lease routes: an older backend) or 401/403. */
const GIVE_UP_MS = 300_000;

export class BudgetLease {
  mode: LeaseMode = 'none';
  grantedNanos = 0;
  /** Consumption drawn on the current slice. */
  usedNanos = 0;
  /** Consumption not yet reported (the part in a request in flight is in {@link reportingNanos}). */
  private unreportedNanos = 0;
  private reportingNanos = 0;
  /** When the slice (or the uncapped answer) lapses. */
  expiresAtMs = 0;
  /** Start of the slice's lifetime (for the two-thirds renewal point). */
  private grantedAtMs = 0;
  private exhaustedUntilMs = 0;
  /** A request is in flight. */
  inFlight = false;
  /** No request before this time (backoff after failures). */
  private nextAttemptAtMs = 0;
  private failures = 0;
  /** The one call admitted past a used-up slice while its renewal is in flight. */
  private borrowed = false;
  private lastReportAtMs = 0;
  /** Calls let through because the backend could not be reached (or refused the key). */
  failOpenCalls = 0;
  /** Lease requests that failed. */
  errors = 0;

  constructor(readonly holderId: string) {}

  /** Released and not called since: no new lease until the next call. */
  private released = false;

  /** Decides a call at `nowMs` from memory alone. */
  admit(nowMs: number): LeaseDecision {
    this.released = false;
    switch (this.mode) {
      case 'uncapped':
      case 'none':
        return null;
      case 'exhausted':
        if (nowMs < this.exhaustedUntilMs) {
          return {
            kind: 'exhausted',
            retryAfterSeconds: Math.max(1, Math.ceil((this.exhaustedUntilMs - nowMs) / 1000)),
          };
        }
        return null; // the period ended: admitted while the next lease is taken
      case 'capped':
        if (this.usedNanos < this.grantedNanos && nowMs < this.expiresAtMs) return null;
        // A slice that lapsed unused (the caller was idle): one call on credit while the next is taken.
        // A slice used up is never extended: the call that crossed it is the holder's one-call overshoot.
        if (nowMs >= this.expiresAtMs && this.usedNanos < this.grantedNanos && !this.borrowed) {
          this.borrowed = true;
          return null;
        }
        return { kind: 'pending' };
      default:
        this.failOpenCalls++;
        return null;
    }
  }

  /** Records the cost of a finished call. */
  record(nanos: number): void {
    if (!(nanos > 0)) return;
    this.usedNanos += nanos;
    this.unreportedNanos += nanos;
  }

  /** Whether a request is due at `nowMs` (`active`: calls are being made). */
  due(nowMs: number, active: boolean): boolean {
    if (this.inFlight || nowMs < this.nextAttemptAtMs) return false;
    switch (this.mode) {
      case 'none':
        return active && !this.released;
      case 'capped':
        return (
          this.usedNanos * 2 >= this.grantedNanos ||
          nowMs >= this.grantedAtMs + ((this.expiresAtMs - this.grantedAtMs) * 2) / 3
        );
      case 'exhausted':
        return active && nowMs >= Math.min(this.exhaustedUntilMs, this.expiresAtMs);
      case 'uncapped':
        return active && nowMs >= this.expiresAtMs;
      default:
        return active;
    }
  }

  /** Starts a request at `nowMs`: the body to send (consumption since the last report). */
  begin(nowMs: number): LeaseRequest {
    this.inFlight = true;
    this.reportingNanos += this.unreportedNanos;
    this.unreportedNanos = 0;
    const consumedUsd = nanosToUsd(this.reportingNanos);
    if (this.lastReportAtMs === 0) return { holderId: this.holderId, consumedUsd };
    // Over at least a second, so that a burst right after a report does not read as a huge rate.
    const minutes = Math.max(1 / 60, (nowMs - this.lastReportAtMs) / 60_000);
    return { holderId: this.holderId, consumedUsd, spendRateUsdPerMin: consumedUsd / minutes };
  }

  /** Applies the answer to the request begun last. */
  answered(answer: LeaseAnswer, nowMs: number): void {
    this.inFlight = false;
    this.reportingNanos = 0;
    this.lastReportAtMs = nowMs;
    this.failures = 0;
    this.nextAttemptAtMs = 0;
    this.borrowed = false;
    this.grantedAtMs = nowMs;
    this.expiresAtMs = nowMs + (answer.ttlMs > 0 ? answer.ttlMs : DEFAULT_TTL_MS);
    // Consumption recorded while the request was in flight draws on the new slice.
    this.usedNanos = this.unreportedNanos;
    if (!answer.capped) {
      this.mode = 'uncapped';
      this.grantedNanos = 0;
    } else if (answer.exhausted) {
      this.mode = 'exhausted';
      this.grantedNanos = 0;
      this.exhaustedUntilMs =
        answer.retryAfterSeconds !== null ? nowMs + answer.retryAfterSeconds * 1000 : this.expiresAtMs;
    } else {
      this.mode = 'capped';
      this.grantedNanos = answer.grantedNanos;
    }
  }

  /**
   * The request begun last failed. A slice still valid is kept until it expires; otherwise the holder
   * fails open. Exhaustion the server announced stays until its time.
   */
  failed(kind: LeaseFailure, nowMs: number): void {
    this.inFlight = false;
    this.unreportedNanos += this.reportingNanos;
    this.reportingNanos = 0;
    this.errors++;
    this.failures++;
    this.nextAttemptAtMs =
      nowMs + (kind === 'unreachable' ? Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.failures) : GIVE_UP_MS);
    if (this.mode === 'exhausted' && nowMs < this.exhaustedUntilMs) return;
    if (this.mode === 'capped' && nowMs < this.expiresAtMs && this.usedNanos < this.grantedNanos) return;
    this.mode = kind;
  }

  /** The release request (shutdown, end of a Lambda invocation): returns the slice; the holder starts afresh. */
  release(): LeaseRequest {
    const consumed = this.unreportedNanos + this.reportingNanos;
    this.unreportedNanos = 0;
    this.reportingNanos = 0;
    this.grantedNanos = 0;
    this.usedNanos = 0;
    this.released = true;
    if (this.mode !== 'exhausted') this.mode = 'none';
    return { holderId: this.holderId, consumedUsd: nanosToUsd(consumed) };
  }

  /** False while failing open (the backend unreachable, without lease routes, or refusing the key). */
  get working(): boolean {
    return (
      this.mode === 'none' || this.mode === 'capped' || this.mode === 'uncapped' || this.mode === 'exhausted'
    );
  }

  /** Whether there is anything to release (a slice held or consumption unreported). */
  get holding(): boolean {
    return (
      this.mode === 'capped' || this.mode === 'uncapped' || this.unreportedNanos + this.reportingNanos > 0
    );
  }
}

/**
 * Reads a lease answer (CONTRACTS §2); null when the body is not one. USD amounts become integer nano-USD.
 */
export function readLeaseAnswer(body: unknown, nowMs: number): LeaseAnswer | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as Record<string, unknown>;
  if (typeof b.capped !== 'boolean') return null;
  let granted = 0;
  try {
    if (typeof b.grantedUsd === 'number' && b.grantedUsd > 0) granted = usdToNanos(b.grantedUsd);
  } catch {
    // out of range: nothing granted
  }
  let ttlMs = typeof b.ttlSeconds === 'number' && b.ttlSeconds > 0 ? b.ttlSeconds * 1000 : 0;
  if (ttlMs === 0 && typeof b.expiresAt === 'string')
    ttlMs = Math.max(0, Date.parse(b.expiresAt) - nowMs) || 0;
  return {
    capped: b.capped,
    exhausted: b.exhausted === true,
    grantedNanos: granted,
    ttlMs,
    retryAfterSeconds:
      typeof b.retryAfterSeconds === 'number' && b.retryAfterSeconds > 0 ? b.retryAfterSeconds : null,
  };
}
