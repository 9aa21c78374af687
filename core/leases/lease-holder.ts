/**
 * The holder's side of a budget lease, in memory and pure: the slice it holds, the reservations in flight
 * against it, the spend it has settled but not yet reported, and its spend rate. A relay container keeps
 * one per budget scope; the property test drives many of them against one {@link LeaseState}.
 *
 * Reserve-then-settle: a call is admitted when its worst case fits in `slice − unreported − reserved`;
 * when the call ends its reservation is replaced by its actual cost (reported at the next renewal).
 * A renewal reports the unreported spend and replaces the slice (see grantLease).
 */
import { utcDayEnd } from '../guardrails/periods';
import {
  ROLLOVER_SPREAD_MS,
  type BudgetPeriod,
  type HeldSlice,
  type LeaseGrant,
  type LeaseRequest,
} from './lease-state';

/** Spend-rate window: the rate is the spend settled over the last full window (or the current one). */
const RATE_WINDOW_MS = 10_000;

/** A holder stops using a slice this long before its expiry (clock skew between holder and store). */
export const EXPIRY_GUARD_MS = 2_000;

/**
 * A holder with calls in flight renews, and an idle one with unreported spend returns its slice, this long
 * before its expiry guard begins: time for one store operation to land while the slice is still live.
 */
export const LEASE_REPORT_LEAD_MS = 3_000;

/** A snapshot sent with a renewal; {@link LeaseHolderState.applyGrant} subtracts exactly what it reported. */
export interface PendingReport {
  /** Replaced (not mutated) by {@link LeaseHolderState.releasedBeforeRollover}. */
  request: LeaseRequest;
}

export class LeaseHolderState {
  /** Whether a hard cap applies; undefined before the first answer. */
  capped: boolean | undefined;
  sliceNanos = 0;
  expiresAtMs = 0;
  /** True when the slice ends with its day (see {@link LeaseGrant.endsWithPeriod}). */
  endsWithPeriod = false;
  /**
   * What the counter holds for this holder, as far as it can tell: the next report returns it whole. After
   * a write whose answer never came, the belief that can only overcount (see {@link writeUncertain}).
   */
  held: HeldSlice | null = null;
  /** Settled spend not yet reported to the store. */
  unreportedNanos = 0;
  reservedNanos = 0;
  reservations = 0;
  /** Set when the last answer was exhausted: the period end (ms) and the period that refused. */
  exhaustedRetryAtMs: number | null = null;
  exhaustedBy: BudgetPeriod | null = null;
  /** `cap − settled` at the last answer, minus spend settled here since (see {@link LeaseGrant.roomNanos}). */
  private room: { nanos: number; atMs: number } | null = null;
  /** What was free to this holder before its last grant (see {@link LeaseGrant.freeNanos}); null before one. */
  freeNanos: number | null = null;
  /**
   * A renewal is in flight: nothing new is reserved until it answers, because the new slice covers only
   * the reservations the report listed.
   */
  renewing = false;
  private windowStart = 0;
  private windowSpend = 0;
  private lastRate = 0;

  constructor(
    readonly holderId: string,
    /** A slice is not used this close to its expiry (clock skew between holder and store), ms. */
    private readonly expiryGuardMs = EXPIRY_GUARD_MS,
  ) {}

  /** Whether the lease (or the uncapped answer) is current at `nowMs`. */
  isCurrent(nowMs: number): boolean {
    return this.capped !== undefined && nowMs < this.expiresAtMs - this.expiryGuardMs;
  }

  /**
   * When this holder must next talk to the store without a call asking it to (ms), or null when it holds
   * nothing that could lapse. Spend a slice covered has to reach the item while the slice is live: once it
   * expires, its unused part is free to other holders, so calls still in flight (renew) or settled spend
   * not yet reported (release, when idle) would no longer count against the cap.
   *
   * Busy: `expiresAt − guard − lead`, or at once if that has passed (a container thawed late); but a slice
   * that ends at midnight UTC cannot be extended by renewing before it: just after it, so a renewal at
   * day's end is not repeated in a loop. Idle: at once if that has passed.
   */
  nextLeaseActionAtMs(nowMs: number): number | null {
    if (this.renewing || this.capped !== true) return null;
    const at = this.expiresAtMs - this.expiryGuardMs - LEASE_REPORT_LEAD_MS;
    if (this.reservations > 0) {
      // Slices never outlive the UTC day (86,400,000 ms in epoch time): renew once the store is in the new
      // day for sure (past the expiry by the skew guard).
      const dayEnd = utcDayEnd(this.expiresAtMs - ROLLOVER_SPREAD_MS);
      if (this.endsWithPeriod && at <= dayEnd) return Math.max(nowMs, dayEnd + this.expiryGuardMs);
      return Math.max(nowMs, at);
    }
    if (this.unreportedNanos > 0 || this.held !== null) return Math.max(nowMs, at);
    return null;
  }

  /**
   * The caps changed since the slice was granted (a lowered cap must not wait for the slice to drain):
   * it is not drawn on any more, and the next call renews under the new caps (the report returns it).
   */
  capsChanged(): void {
    this.expiresAtMs = Math.min(this.expiresAtMs, 0);
  }

  /** What a new reservation may use now. */
  available(): number {
    return this.sliceNanos - this.unreportedNanos - this.reservedNanos;
  }

  /**
   * Reserves `costNanos` in memory if the lease is current and it fits (always, when uncapped).
   * @returns true when admitted
   */
  tryReserve(costNanos: number, nowMs: number): boolean {
    if (this.renewing || !this.isCurrent(nowMs)) return false;
    if (this.capped === false) return true;
    if (costNanos > this.available()) return false;
    this.reservedNanos += costNanos;
    this.reservations++;
    return true;
  }

  /** Replaces a reservation (made while capped) by the call's actual cost. */
  settle(reservedNanos: number, actualNanos: number, nowMs: number): void {
    this.reservedNanos = Math.max(0, this.reservedNanos - reservedNanos);
    this.reservations = Math.max(0, this.reservations - 1);
    this.record(actualNanos, nowMs);
  }

  /** Counts spend of a call that was admitted without a reservation (uncapped, or failed open). */
  record(actualNanos: number, nowMs: number): void {
    const a = Math.max(0, Math.round(actualNanos));
    this.unreportedNanos += a;
    if (this.room !== null) this.room = { nanos: this.room.nanos - a, atMs: this.room.atMs };
    if (nowMs - this.windowStart >= RATE_WINDOW_MS) {
      this.lastRate =
        nowMs - this.windowStart > 2 * RATE_WINDOW_MS ? 0 : this.windowSpend / (RATE_WINDOW_MS / 1000);
      this.windowStart = nowMs;
      this.windowSpend = 0;
    }
    this.windowSpend += a;
  }

  /**
   * True when a call of `costNanos` cannot fit whatever other holders return: settled spend alone leaves
   * less room, as of an answer at most `maxAgeMs` old (a raised cap is seen after that) and of the same
   * UTC day (just after midnight an answer of the day before says nothing about the new day's room).
   */
  settledLeavesNoRoom(costNanos: number, nowMs: number, maxAgeMs: number): boolean {
    return (
      this.room !== null &&
      nowMs - this.room.atMs < maxAgeMs &&
      nowMs < utcDayEnd(this.room.atMs) &&
      costNanos > this.room.nanos
    );
  }

  /** Recent spend rate, nano-USD per second. */
  rateNanosPerSecond(nowMs: number): number {
    const elapsed = Math.max(1, nowMs - this.windowStart);
    const current = this.windowSpend / (Math.min(RATE_WINDOW_MS, elapsed) / 1000);
    return Math.max(this.lastRate, Number.isFinite(current) ? current : 0);
  }

  /** The renewal to send, asking room for a call of `needNanos` (0: renew only). */
  report(needNanos: number, nowMs: number, wantNanos = 0): PendingReport {
    this.renewing = true;
    return {
      request: {
        holderId: this.holderId,
        consumedNanos: this.unreportedNanos,
        reservedNanos: this.reservedNanos,
        reservations: this.reservations,
        needNanos,
        rateNanosPerSecond: this.rateNanosPerSecond(nowMs),
        wantNanos,
        held: this.held,
      },
    };
  }

  /**
   * Applies the store's answer to a report. Spend settled while the renewal was in flight stays unreported;
   * the new slice already covers every reservation that was in flight when the report was taken.
   */
  applyGrant(sent: PendingReport, grant: LeaseGrant, nowMs: number): void {
    this.renewing = false;
    // Spend settled while the report was in flight is not in the answer's room yet.
    const since = this.unreportedNanos - sent.request.consumedNanos;
    this.room = grant.roomNanos === null ? null : { nanos: grant.roomNanos - since, atMs: nowMs };
    this.unreportedNanos = Math.max(0, this.unreportedNanos - sent.request.consumedNanos);
    this.capped = grant.capped;
    this.sliceNanos = grant.capped ? grant.sliceNanos : 0;
    this.expiresAtMs = grant.expiresAtMs;
    this.endsWithPeriod = grant.endsWithPeriod;
    this.held = grant.held;
    this.freeNanos = grant.freeNanos;
    this.exhaustedRetryAtMs = grant.exhausted ? grant.retryAtMs : null;
    this.exhaustedBy = grant.refusedBy;
  }

  /** The renewal failed before any write was sent: nothing changed, the report will be sent again. */
  renewalFailed(): void {
    this.renewing = false;
  }

  /**
   * The answer to a write never came (a timeout): it may land now, later, or never. The holder believes
   * whichever outcome makes its next report overcount if wrong: a write that grows the counter
   * (`consumed + new slice − old slice > 0`) did not land, one that shrinks it did. Under that belief it
   * uses only what the counter holds for it in either outcome: after a growing write, the old slice (the
   * counter holds the larger new one if it landed); after a shrinking one, nothing until its next answer.
   * So the counter ends at or above the truth, never below (docs/admission.md, "uncertain writes").
   * @param attempted what the write would hold for this holder (null: no write was sent)
   */
  writeUncertain(sent: PendingReport, attempted: { held: HeldSlice | null } | null): void {
    this.renewing = false;
    if (attempted === null) return;
    const grows =
      sent.request.consumedNanos + (attempted.held?.sliceNanos ?? 0) - (sent.request.held?.sliceNanos ?? 0) >
      0;
    if (grows) return;
    this.expiresAtMs = 0;
    this.sliceNanos = 0;
    this.held = attempted.held;
    this.unreportedNanos = Math.max(0, this.unreportedNanos - sent.request.consumedNanos);
  }

  /**
   * The first write of a renewal across midnight (see crossesDay) landed: the old slice is returned and the
   * report's spend settled. What follows (the grant, its answer or its uncertainty) reports nothing more.
   */
  releasedBeforeRollover(sent: PendingReport): void {
    this.unreportedNanos = Math.max(0, this.unreportedNanos - sent.request.consumedNanos);
    this.held = null;
    // The returned slice is no longer usable, whatever becomes of the grant.
    this.sliceNanos = 0;
    this.expiresAtMs = 0;
    sent.request = { ...sent.request, consumedNanos: 0, held: null };
  }

  /**
   * Whether an idle holder should hand its slice back before it is frozen: it holds something (a slice or
   * unreported spend), has nothing in flight, and its last answer found the scope near its cap, i.e.
   * exhausted, or what was free would not give each of `fleetSize` holders a slice like this one. Room
   * parked in a frozen holder's slice is unusable by the others until it thaws, and once the slice lapses
   * it is charged as spent; near the cap that refuses calls that still fit (docs/admission.md, "idle
   * holders"). Far from it, keeping the slice saves a store write per invocation.
   */
  shouldReturnWhenIdle(fleetSize: number): boolean {
    if (this.capped !== true || this.renewing || this.reservations > 0) return false;
    if (this.held === null && this.unreportedNanos === 0) return false;
    if (this.exhaustedRetryAtMs !== null || this.freeNanos === null) return true;
    return this.freeNanos < fleetSize * Math.max(1, this.sliceNanos);
  }

  /** After a release: nothing held, spend up to the report delivered. */
  applyRelease(sent: PendingReport): void {
    this.renewing = false;
    this.unreportedNanos = Math.max(0, this.unreportedNanos - sent.request.consumedNanos);
    this.sliceNanos = 0;
    this.expiresAtMs = 0;
    this.held = null;
    this.freeNanos = null;
    this.capped = undefined;
  }
}
