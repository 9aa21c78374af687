/**
 * The SDK's share of the organization's hard budget (design decisions 11 and 12, CONTRACTS §2): a slice of
 * the cap the server lends this process through `POST /v1/budget/lease`, against which every
 * direct-to-provider call reserves its worst case before it is made; the call's actual cost replaces the
 * reservation when it ends. The same protocol as the relay's holders (core/leases/lease-holder.ts).
 *
 * Pure state machine (time comes in as arguments); the requests are made by the client.
 *
 * - `capped: false` (no hard cap): every call is admitted; the lease only reports consumption.
 * - Capped: a call is admitted only if its worst case fits what the slice has left
 *   (`granted − consumed since the grant − reserved`), so the holder's calls never commit more than its
 *   slice. A call that does not fit, or that comes while a renewal is in flight (the new slice covers
 *   only the reservations the request listed), or after the slice lapsed, waits for the next answer
 *   ({@link LeaseDecision} `wait`); the request asks room for it (`needUsd`).
 * - `exhausted: true`: calls are refused ({@link EXHAUSTED_RECHECK_MS} at most from memory, then asked
 *   again), with the server's `retryAfterSeconds`.
 * - The key refused (401/403): every call is refused (fail closed: decision 6, never on identity), and the
 *   lease is asked again after {@link REFUSED_RETRY_MS}.
 * - Backend unreachable (network error, timeout, 5xx, 429) or without lease routes (404): before any answer
 *   said a hard cap applies, calls go through unreserved and are counted (spec Law 4); once one did, a
 *   live slice keeps serving and a call that needs more waits, then gets a retryable 429 (decision 6).
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
  /**
   * Exhausted only while room is held by other holders' slices or calls in flight (the relay's
   * `budget_busy`): a retry can succeed. False when settled spend leaves no room.
   */
  readonly retryable?: boolean;
  /** The organization lets batch, fine-tuning and background calls through under its hard cap. */
  readonly allowDeferredBilling?: boolean;
}

/** What {@link BudgetLease.admit} decides for one call. */
export type LeaseDecision =
  /** Admitted; `reservedNanos` reserved against the slice (0: nothing to reserve). */
  | { readonly kind: 'admitted'; readonly reservedNanos: number }
  /** The call needs a lease answer first (taken, renewed, or room for it asked). */
  | { readonly kind: 'wait' }
  /** No room: `retryable` when it is only held by calls in flight (a retry can succeed). */
  | { readonly kind: 'exhausted'; readonly retryAfterSeconds: number; readonly retryable: boolean }
  /** The lease route refused the key: fail closed until the next attempt. */
  | { readonly kind: 'refused'; readonly retryAfterSeconds: number };

/** Why a lease request failed. */
export type LeaseFailure = 'unreachable' | 'unsupported' | 'refused';

/** The holder's state, for stats and docs. */
export type LeaseMode = 'none' | 'uncapped' | 'capped' | 'exhausted' | LeaseFailure;

/** The body of a lease request. */
export interface LeaseRequest {
  readonly holderId: string;
  readonly consumedUsd: number;
  readonly spendRateUsdPerMin?: number;
  /** Worst cases of this holder's calls in flight: the new slice keeps covering them. */
  readonly reservedUsd?: number;
  /** Worst cases of the calls waiting for this answer: granted on top, or the answer is exhausted. */
  readonly needUsd?: number;
}

/** The body of a release request. */
export interface LeaseRelease {
  readonly holderId: string;
  readonly consumedUsd: number;
}

const DEFAULT_TTL_MS = 30_000;
/** A slice is not used this close to its expiry (the answer's trip, the holder's timer granularity). */
export const LEASE_EXPIRY_GUARD_MS = 1_000;
/** Longest wait between attempts while the backend fails (it doubles from 1 s). */
const MAX_BACKOFF_MS = 30_000;
/** Wait before asking again after 404 (no lease routes: an older backend). */
const GIVE_UP_MS = 300_000;
/** An exhausted answer refuses calls from memory this long at most; the next call asks again. */
export const EXHAUSTED_RECHECK_MS = 5_000;
/** Wait before asking again after 401/403; calls are refused meanwhile. */
export const REFUSED_RETRY_MS = 60_000;

export class BudgetLease {
  mode: LeaseMode = 'none';
  grantedNanos = 0;
  /** The last answer allowed deferred-billing calls under the cap (bounded like others, not refused). */
  allowDeferredBilling = false;
  /** Consumption since the slice was granted (reported or not): it draws on the slice. */
  usedNanos = 0;
  /** Worst cases of the calls in flight, and their number. */
  reservedNanos = 0;
  reservations = 0;
  /** Consumption not yet reported (the part in a request in flight is in `#reportingNanos`). */
  #unreportedNanos = 0;
  #reportingNanos = 0;
  /** When the slice (or the uncapped answer) lapses. */
  expiresAtMs = 0;
  /** Start of the slice's lifetime (for the two-thirds renewal point). */
  #grantedAtMs = 0;
  #exhaustedUntilMs = 0;
  /** The exhausted answer said room is only held by calls in flight. */
  #exhaustedRetryable = false;
  /** When the server said room comes back (its `retryAfterSeconds`, as an instant). */
  #retryAtMs = 0;
  /** The need the request in flight asked for, and the one an exhausted answer refused (0: no room at all). */
  #sentNeedNanos = 0;
  #refusedNeedNanos = 0;
  /** A request is in flight, sent at `#sentAtMs`. */
  inFlight = false;
  #sentAtMs = 0;
  /** No request before this time (backoff after failures). */
  #nextAttemptAtMs = 0;
  #failures = 0;
  #lastReportAtMs = 0;
  /**
   * Worst cases of the calls waiting for an answer. The next request asks room for the largest (`needUsd`):
   * the server grants a need whole or not at all, so asking for their sum would refuse them all when
   * one of them still fits.
   */
  readonly waiting: number[] = [];
  /** The largest worst case of this holder's calls: what a renewal after an exhausted answer asks room for. */
  #lastWorstNanos = 0;
  /** Calls let through because the backend could not be reached (no live slice). */
  failOpenCalls = 0;
  /** Calls refused because the lease route refused the key. */
  refusedCalls = 0;
  /** Lease requests that failed. */
  errors = 0;

  constructor(readonly holderId: string) {}

  /** Whether the capped slice can be drawn on at `nowMs`. */
  #live(nowMs: number): boolean {
    return nowMs < this.expiresAtMs - LEASE_EXPIRY_GUARD_MS;
  }

  /** What a new reservation may use now. */
  available(): number {
    return this.grantedNanos - this.usedNanos - this.reservedNanos;
  }

  /** Decides a call whose worst case is `costNanos` at `nowMs`, from memory alone; reserves it when admitted. */
  admit(costNanos: number, nowMs: number): LeaseDecision {
    switch (this.mode) {
      case 'uncapped':
        return ADMITTED_FREE;
      case 'none':
        return WAIT;
      case 'exhausted':
        // Refused for a call as large as the one the answer refused; a smaller one may fit: ask.
        if (
          nowMs < this.#exhaustedUntilMs &&
          (this.#refusedNeedNanos === 0 || costNanos >= this.#refusedNeedNanos)
        ) {
          return {
            kind: 'exhausted',
            retryAfterSeconds: Math.max(1, Math.ceil((this.#retryAtMs - nowMs) / 1000)),
            retryable: this.#exhaustedRetryable,
          };
        }
        return WAIT; // the period ended: ask again
      case 'capped':
        return this.#reserve(costNanos, nowMs);
      case 'refused':
        if (nowMs < this.#nextAttemptAtMs) {
          this.refusedCalls++;
          return {
            kind: 'refused',
            retryAfterSeconds: Math.max(1, Math.ceil((this.#nextAttemptAtMs - nowMs) / 1000)),
          };
        }
        return WAIT;
      default:
        this.failOpenCalls++;
        return ADMITTED_FREE;
    }
  }

  #reserve(costNanos: number, nowMs: number): LeaseDecision {
    const cost = Math.max(0, Math.ceil(costNanos));
    this.noteWorstCase(cost);
    if (this.inFlight || !this.#live(nowMs) || cost > this.available()) return WAIT;
    this.reservedNanos += cost;
    this.reservations++;
    return { kind: 'admitted', reservedNanos: cost };
  }

  /** Remembers a call's worst case (one that waits for room, too). */
  noteWorstCase(costNanos: number): void {
    this.#lastWorstNanos = Math.max(this.#lastWorstNanos, Math.ceil(costNanos));
  }

  /**
   * Replaces a reservation by the call's actual cost (`reservedNanos` 0: an unreserved call's cost, which
   * uses the slice here but is not reported: it reaches the cap through the pipeline, like any event
   * without `leased`). One accounting (issue 18.2): a lease reports exactly the calls it reserved, and
   * their events say so, so the server counts every call once.
   * @returns whether the lease reports this call (its event carries `leased: true`)
   */
  settle(reservedNanos: number, actualNanos: number): boolean {
    const reserved = reservedNanos > 0;
    if (reserved) {
      this.reservedNanos = Math.max(0, this.reservedNanos - reservedNanos);
      this.reservations = Math.max(0, this.reservations - 1);
    }
    if (!(actualNanos > 0)) return reserved;
    this.usedNanos += actualNanos;
    if (reserved) this.#unreportedNanos += actualNanos;
    return reserved;
  }

  /** Whether a request is due at `nowMs` (`active`: calls are being made). */
  due(nowMs: number, active: boolean): boolean {
    if (this.inFlight || nowMs < this.#nextAttemptAtMs) return false;
    if (this.waiting.length > 0) return true;
    switch (this.mode) {
      case 'none':
        return active;
      case 'capped':
        // Renewed while calls are made, or while calls are in flight (their reservations must stay
        // covered past the slice's expiry); an idle holder keeps its slice until it lapses.
        if (!active && this.reservations === 0) return false;
        return (
          (this.usedNanos + this.reservedNanos) * 2 >= this.grantedNanos ||
          nowMs >= this.#grantedAtMs + ((this.expiresAtMs - this.#grantedAtMs) * 2) / 3
        );
      case 'exhausted':
        return active && nowMs >= Math.min(this.#exhaustedUntilMs, this.expiresAtMs);
      case 'uncapped':
        return active && nowMs >= this.expiresAtMs;
      default:
        return active;
    }
  }

  /** Starts a request at `nowMs`: the body to send (consumption since the last report, reservations, need). */
  begin(nowMs: number): LeaseRequest {
    this.inFlight = true;
    this.#sentAtMs = nowMs;
    this.#reportingNanos += this.#unreportedNanos;
    this.#unreportedNanos = 0;
    const consumedUsd = nanosToUsd(this.#reportingNanos);
    const body: {
      holderId: string;
      consumedUsd: number;
      spendRateUsdPerMin?: number;
      reservedUsd?: number;
      needUsd?: number;
    } = { holderId: this.holderId, consumedUsd };
    // Rounded up: a slice that covers a little more than the reservations, never less.
    if (this.reservedNanos > 0) body.reservedUsd = nanosToUsd(this.reservedNanos + 1);
    // The largest waiting call; when refused for lack of room, a renewal asks again for the call that was
    // refused: the server grants a need whole or not at all, so the holder does not take a slice too
    // small for its calls while that room, pooled, would let some holder's call through. Right after a
    // refusal, a smaller waiting call is asked for first: asking again for the need just refused would
    // hold it back behind a call that does not fit (issue 18: none is refused while one still fits).
    const refused = this.mode === 'exhausted' ? this.#refusedNeedNanos : 0;
    const smaller = refused > 0 ? this.waiting.filter((c) => c < refused) : [];
    this.#sentNeedNanos =
      smaller.length > 0
        ? Math.max(...smaller)
        : this.waiting.length > 0
          ? Math.max(...this.waiting)
          : this.mode === 'exhausted'
            ? Math.max(this.#refusedNeedNanos, this.#lastWorstNanos)
            : 0;
    if (this.#sentNeedNanos > 0) body.needUsd = nanosToUsd(this.#sentNeedNanos + 1);
    if (this.#lastReportAtMs === 0) return body;
    // Over at least a second, so that a burst right after a report does not read as a huge rate.
    const minutes = Math.max(1 / 60, (nowMs - this.#lastReportAtMs) / 60_000);
    body.spendRateUsdPerMin = consumedUsd / minutes;
    return body;
  }

  /** Applies the answer to the request begun last. */
  answered(answer: LeaseAnswer, nowMs: number): void {
    this.inFlight = false;
    this.#reportingNanos = 0;
    this.#lastReportAtMs = nowMs;
    this.#failures = 0;
    this.#nextAttemptAtMs = 0;
    this.#grantedAtMs = nowMs;
    // From when the request was sent: the server's lifetime started no earlier, so ours never outlasts it.
    this.expiresAtMs = Math.min(nowMs, this.#sentAtMs) + (answer.ttlMs > 0 ? answer.ttlMs : DEFAULT_TTL_MS);
    // Consumption recorded while the request was in flight draws on the new slice; the slice covers the
    // reservations the request listed (those settled since have moved into the consumption).
    this.usedNanos = this.#unreportedNanos;
    this.allowDeferredBilling = answer.allowDeferredBilling === true;
    if (!answer.capped) {
      this.mode = 'uncapped';
      this.grantedNanos = 0;
    } else if (answer.exhausted) {
      this.mode = 'exhausted';
      this.grantedNanos = answer.grantedNanos;
      this.#refusedNeedNanos = this.#sentNeedNanos;
      this.#exhaustedRetryable = answer.retryable === true;
      this.#retryAtMs =
        answer.retryAfterSeconds !== null ? nowMs + answer.retryAfterSeconds * 1000 : this.expiresAtMs;
      // Refused from memory for a few seconds only: room other holders park in their slices comes back.
      this.#exhaustedUntilMs = Math.min(this.#retryAtMs, nowMs + EXHAUSTED_RECHECK_MS);
    } else {
      this.mode = 'capped';
      this.grantedNanos = answer.grantedNanos;
    }
  }

  /**
   * The request begun last failed. The key refused fails closed. Otherwise, once a hard cap is known to
   * apply (a capped or exhausted answer came), the holder keeps that state: a live slice keeps serving,
   * and a call that needs a new answer waits for one and is then refused with a retryable 429 (design
   * decision 6: a hard cap admits a call only against a reservation; contention or an outage of the
   * lease store is never a reason to spend past it). Without a known cap the holder fails open.
   */
  failed(kind: LeaseFailure, nowMs: number): void {
    this.inFlight = false;
    this.#unreportedNanos += this.#reportingNanos;
    this.#reportingNanos = 0;
    this.errors++;
    this.#failures++;
    if (kind === 'refused') {
      this.#nextAttemptAtMs = nowMs + REFUSED_RETRY_MS;
      this.mode = 'refused';
      this.grantedNanos = 0;
      return;
    }
    if (this.mode === 'capped' || this.mode === 'exhausted') {
      // Contention answers 503 for a moment: try again soon.
      this.#nextAttemptAtMs = nowMs + Math.min(MAX_BACKOFF_MS, 250 * 2 ** Math.min(7, this.#failures - 1));
      return;
    }
    this.#nextAttemptAtMs =
      nowMs + (kind === 'unreachable' ? Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.#failures) : GIVE_UP_MS);
    this.mode = kind;
  }

  /**
   * The lease route answered 503 or 429 with `Retry-After`: the API is up and the budget item busy
   * (contention among holders). Contention is never a failure (design decision 6): asked again soon,
   * calls waiting meanwhile (at most the client's wait, then a retryable 429).
   */
  busy(nowMs: number): void {
    this.inFlight = false;
    this.#unreportedNanos += this.#reportingNanos;
    this.#reportingNanos = 0;
    this.errors++;
    this.#failures++;
    this.#nextAttemptAtMs = nowMs + Math.min(MAX_BACKOFF_MS, 100 * 2 ** Math.min(8, this.#failures - 1));
  }

  /**
   * The request begun last never got its answer because the process was frozen meanwhile (a Lambda
   * environment between invocations): its timeout fired late, at the thaw. Not a failure of the backend:
   * the report is sent again (if the first one landed, spend is counted twice: over, never under).
   */
  interrupted(): void {
    this.inFlight = false;
    this.#unreportedNanos += this.#reportingNanos;
    this.#reportingNanos = 0;
  }

  /** The release request (shutdown): returns the slice; the holder starts afresh. */
  release(): LeaseRelease {
    const consumed = this.#unreportedNanos + this.#reportingNanos;
    this.#unreportedNanos = 0;
    this.#reportingNanos = 0;
    this.grantedNanos = 0;
    this.usedNanos = 0;
    if (this.mode !== 'exhausted' && this.mode !== 'refused') this.mode = 'none';
    return { holderId: this.holderId, consumedUsd: nanosToUsd(consumed) };
  }

  /** Consumption not yet reported, in nano-USD. */
  get unreported(): number {
    return this.#unreportedNanos + this.#reportingNanos;
  }

  /** False while failing open or closed (the backend unreachable, without lease routes, or refusing the key). */
  get working(): boolean {
    return (
      this.mode === 'none' || this.mode === 'capped' || this.mode === 'uncapped' || this.mode === 'exhausted'
    );
  }

  /** Whether there is anything to release (a slice held or consumption unreported). */
  get holding(): boolean {
    return this.mode === 'capped' || this.mode === 'uncapped' || this.unreported > 0;
  }
}

const ADMITTED_FREE: LeaseDecision = Object.freeze({ kind: 'admitted', reservedNanos: 0 });
const WAIT: LeaseDecision = Object.freeze({ kind: 'wait' });

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
    retryable: b.exhausted === true && b.retryable === true,
    allowDeferredBilling: b.allowDeferredBilling === true,
  };
}
