/**
 * Admission at the relay (design decisions 11 and 12): before the provider is contacted, the call's worst
 * case is reserved against every budget scope that applies, from a slice this container holds in memory;
 * after the response the reservation is settled with the call's actual cost. Far from the cap a call costs
 * no store round trip; when the slice cannot hold it, one lease write (read caps and item only when the
 * cached ones are stale or a race was lost). See docs/admission.md.
 *
 * Never past a hard cap (design decision 6): a call is admitted only against a reservation it holds.
 * Contention and a store that cannot be reached or answers too slowly are answered with a retryable 429
 * when a hard cap is known to apply; only while no cap is known (the caps themselves unreadable) does the
 * call go through, counted as `AdmissionFailOpen`.
 */
import { randomUUID } from 'node:crypto';
import { budgetScopesFor, scopeId, type BudgetScope } from '../../core/admission/budget-scopes';
import {
  cheapWorstCase,
  preciseWorstCase,
  type CallToBound,
  type WorstCase,
} from '../../core/admission/worst-case';
import { EXPIRY_GUARD_MS, LeaseHolderState } from '../../core/leases/lease-holder';
import { CAPS_CACHE_TTL_MS } from '../shared/caps-propagation';
import {
  periodEndMs,
  type BudgetPeriod,
  type CapsNanos,
  type CounterReading,
  type LeaseGrant,
} from '../../core/leases/lease-state';
import type { TokenCounter } from '../../core/usage';
import { noopMetrics, type MetricsSink } from '../edge-guard/metrics';
import type { BudgetLeases, WriteTracker } from '../shared/budget-leases';
import { processTimers, type Timers } from '../shared/timers';

/** A reservation to settle once the call has ended. */
export interface AdmissionTicket {
  /** The reserved worst case, nano-USD (0 when admitted without a reservation). */
  readonly reservedNanos: number;
  /** Settles with the actual cost; null = unknown, settle at the reservation. Idempotent. */
  settle(actualNanos: number | null): void;
  /**
   * True when {@link settle} counts the call in a capped lease whatever the actual (the counter will hold
   * it): the call's event says so, and the pipeline leaves it out of the unleased figure (issue 18.2).
   */
  readonly leased?: boolean;
}

export type AdmissionDecision =
  | { readonly kind: 'admitted'; readonly ticket: AdmissionTicket }
  | {
      readonly kind: 'refused';
      readonly period: BudgetPeriod;
      readonly retryAfterSeconds: number;
      readonly capNanos: number | null;
      /**
       * True when room is only held by live slices, in-flight reservations or a store that could not be
       * reached: a retryable 429 (`x-should-retry: true`, Retry-After = when room can come back). False
       * (`budget_exceeded`): settled spend leaves no room before the period ends. @default false
       */
      readonly retryable?: boolean;
    };

/** The hook the relay calls (null-object friendly: the relay runs without one). */
export interface RelayAdmission {
  admit(orgId: string, call: CallToBound): Promise<AdmissionDecision>;
}

export interface LeaseAdmissionOptions {
  readonly leases: BudgetLeases;
  readonly metrics?: MetricsSink;
  readonly now?: () => number;
  /** Refines a bound that does not fit comfortably (o200k for OpenAI models). */
  readonly tokenCounter?: TokenCounter;
  /** How long a call that would fit once other in-flight calls settle may wait. @default 3000 ms */
  readonly maxWaitMs?: number;
  /** A store operation slower than this fails open. @default 1000 ms */
  readonly storeTimeoutMs?: number;
  /** How long caps read from the config are reused (`caps-propagation.ts`). @default 500 ms */
  readonly capsTtlMs?: number;
  /** This holder's id in the lease items. @default `relay-<uuid>` */
  readonly holderId?: string;
  /** What the lease timer runs on (the local relay pool pauses it while the container is idle). @default the process's */
  readonly timers?: Timers;
  /**
   * Holders that may share a scope (the relay's reserved concurrency): an idle container returns its
   * slice before it is frozen once what was free would not give each of them a slice like its own
   * (see {@link LeaseAdmission.invocationEnded}). @default 100
   */
  readonly fleetSize?: number;
  /** Elapsed time for the admission wait (monotonic; the `now` clock may be a test's frozen clock). @default performance.now */
  readonly elapsedMs?: () => number;
}

interface ScopeEntry {
  readonly scope: BudgetScope;
  readonly holder: LeaseHolderState;
  /** The counter as this holder's last write returned it (saves a read while it still leaves room). */
  reading?: CounterReading;
  caps?: { value: CapsNanos; atMs: number };
  /** The re-read of the caps under a live slice in flight ({@link LeaseAdmission.recheckCaps}). */
  capsCheck?: Promise<void>;
  /** The lease operation in flight (a renewal, or the release of an idle slice). */
  renewal?: Promise<LeaseGrant | 'failed' | 'released'>;
  /** The lease timer (see {@link LeaseAdmission.armLeaseTimer}) and the instant it is set for. */
  leaseTimer?: { handle: unknown; atMs: number };
  /** Store failures in a row; the lease timer backs off exponentially (1 s … 60 s) while they last. */
  storeFailures: number;
  timerNotBeforeMs: number;
  lastUseMs: number;
  /** After a store failure, calls fail open at once until then (no timeout paid per call). */
  failedUntilMs: number;
  /** Worst cases of the calls waiting in the admission loop: a renewal asks room for all of them. */
  waitingNanos: number;
  /** Wakes callers waiting for in-flight calls of this scope to settle. */
  waiters: Array<() => void>;
}

const ADMITTED_FREE: AdmissionDecision = Object.freeze({
  kind: 'admitted',
  ticket: Object.freeze({ reservedNanos: 0, settle: () => undefined }),
});

class StoreTimeout extends Error {}

/**
 * A lease operation is abandoned (its outcome then believed the way that can only overcount) only after
 * this many store timeouts; a call stops waiting for it after one.
 */
const LATE_ANSWER_FACTOR = 10;

/** How long calls fail open without trying the store after it failed. */
const FAILED_STORE_BACKOFF_MS = 1_000;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new StoreTimeout(`store slower than ${ms} ms`)), ms);
    t.unref?.();
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

/**
 * @example
 * const admission = new LeaseAdmission({ leases: new BudgetLeases({ store, config, aggregates, now }) });
 * new Relay({ keys, sink, admission });
 */
export class LeaseAdmission implements RelayAdmission {
  private readonly entries = new Map<string, ScopeEntry>();
  private readonly metrics: MetricsSink;
  private readonly now: () => number;
  private readonly holderId: string;
  private readonly maxWaitMs: number;
  private readonly storeTimeoutMs: number;
  private readonly capsTtlMs: number;
  private readonly timers: Timers;
  private readonly fleetSize: number;
  private readonly elapsedMs: () => number;

  constructor(private readonly opts: LeaseAdmissionOptions) {
    this.timers = opts.timers ?? processTimers;
    this.metrics = opts.metrics ?? noopMetrics;
    this.now = opts.now ?? Date.now;
    this.holderId = opts.holderId ?? `relay-${randomUUID()}`;
    this.maxWaitMs = opts.maxWaitMs ?? 3_000;
    this.storeTimeoutMs = opts.storeTimeoutMs ?? 1_000;
    this.capsTtlMs = opts.capsTtlMs ?? CAPS_CACHE_TTL_MS;
    this.fleetSize = opts.fleetSize ?? 100;
    this.elapsedMs = opts.elapsedMs ?? (() => performance.now());
  }

  async admit(orgId: string, call: CallToBound): Promise<AdmissionDecision> {
    const scopes = budgetScopesFor(orgId);
    if (scopes.length === 1) return this.admitIn(this.entry(scopes[0] as BudgetScope), call);
    // Every scope must admit; one refusal returns the reservations already made.
    const tickets: AdmissionTicket[] = [];
    for (const scope of scopes) {
      const d = await this.admitIn(this.entry(scope), call);
      if (d.kind === 'refused') {
        for (const t of tickets) t.settle(0);
        return d;
      }
      tickets.push(d.ticket);
    }
    return {
      kind: 'admitted',
      ticket: {
        reservedNanos: Math.max(0, ...tickets.map((t) => t.reservedNanos)),
        settle: (actual) => tickets.forEach((t) => t.settle(actual)),
      },
    };
  }

  /** Returns every slice this container holds (process shutdown). Never rejects. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((e) => this.release(e)));
    for (const e of this.entries.values()) {
      if (e.leaseTimer !== undefined) this.timers.clearTimeout(e.leaseTimer.handle);
      e.leaseTimer = undefined;
    }
  }

  /**
   * Resolves once no lease operation (renewal, release) is in flight, including ones started meanwhile.
   * A Lambda container is frozen right after its invocation returns: an operation still pending then
   * would land (or time out) only at the next thaw, so the invocation end awaits this. Never rejects.
   */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [...this.entries.values()].flatMap((e) => (e.renewal === undefined ? [] : [e.renewal]));
      if (pending.length === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /**
   * The invocation has ended and the container is about to be frozen: near the cap, idle slices go back
   * to the counter (with their spend), so room is not parked where no call can use it until a thaw, nor
   * charged as spent once the slice lapses; then every pending lease operation finishes
   * ({@link settled}). Far from the cap the slice is kept for the next invocation. Never rejects.
   */
  async invocationEnded(): Promise<void> {
    // Twice: a renewal still in flight (its call was answered at the store timeout) lands a slice only
    // once settled() has waited for it, and that slice is the one a freeze would park and lapse. A release
    // leaves nothing to return, so the second round writes only after such a late grant.
    for (let round = 0; round < 2; round++) {
      for (const e of this.entries.values()) {
        if (e.renewal === undefined && e.holder.shouldReturnWhenIdle(this.fleetSize)) void this.release(e);
      }
      await this.settled();
    }
  }

  /** The in-memory view of a scope (tests, the bench). */
  holderOf(orgId: string): LeaseHolderState | undefined {
    return this.entries.get(scopeId({ kind: 'organization', orgId }))?.holder;
  }

  private entry(scope: BudgetScope): ScopeEntry {
    const id = scopeId(scope);
    let e = this.entries.get(id);
    if (e === undefined) {
      e = {
        scope,
        holder: new LeaseHolderState(this.holderId),
        lastUseMs: 0,
        failedUntilMs: 0,
        storeFailures: 0,
        timerNotBeforeMs: 0,
        waitingNanos: 0,
        waiters: [],
      };
      this.entries.set(id, e);
    }
    return e;
  }

  private async admitIn(e: ScopeEntry, call: CallToBound): Promise<AdmissionDecision> {
    const h = e.holder;
    const startedAt = this.now();
    e.lastUseMs = startedAt;
    // Far from the cap: the cheap bound, in memory, no store.
    if (h.capped === false && h.isCurrent(startedAt) && !h.renewing) return ADMITTED_FREE;
    if (h.capped === true) {
      const check = this.recheckCaps(e, startedAt);
      if (check !== undefined) await check;
    }
    let bound: WorstCase = cheapWorstCase(call);
    let refined = false;
    const refine = (): void => {
      if (refined) return;
      refined = true;
      const precise = preciseWorstCase(call, this.opts.tokenCounter);
      if (precise.costNanos < bound.costNanos) bound = precise;
    };
    // "Comfortably": the slice could hold four such calls; otherwise spend CPU on the precise bound.
    if (h.capped === true && bound.costNanos * 4 > h.available()) refine();
    if (h.tryReserve(bound.costNanos, startedAt)) return this.ticket(e, bound.costNanos);
    if (h.capped === true) {
      refine();
      if (h.settledLeavesNoRoom(bound.costNanos, startedAt, this.capsTtlMs)) {
        return this.refuse(e, h.exhaustedRetryAtMs, null, false);
      }
    }
    if (startedAt < e.failedUntilMs) return this.storeUnavailable(e);
    if (h.capped !== false) refine();
    const cost = bound.costNanos;
    e.waitingNanos += cost;
    try {
      return await this.admitWaiting(e, cost, this.elapsedMs());
    } finally {
      e.waitingNanos -= cost;
    }
  }

  /** The slow path: renew (sharing renewals with the other waiting calls), wait, or refuse. */
  /** @param waitStartMs on the {@link LeaseAdmissionOptions.elapsedMs} clock */
  private async admitWaiting(e: ScopeEntry, cost: number, waitStartMs: number): Promise<AdmissionDecision> {
    const h = e.holder;
    for (;;) {
      if (h.renewing && e.renewal !== undefined) {
        // One renewal at a time; then try the fresh slice. A slow store answers this call retryably.
        if ((await this.callWait(e.renewal)) === 'failed' && h.renewing) return this.storeUnavailable(e);
      } else {
        const grant = await this.renew(e, cost, e.waitingNanos - cost);
        if (grant === 'released') continue; // an idle slice was being returned: ask again
        if (grant === 'failed') return this.storeUnavailable(e);
        if (!grant.capped) return ADMITTED_FREE;
        if (grant.exhausted) {
          const waited = this.elapsedMs() - waitStartMs;
          if (grant.settledLeavesNoRoom || waited >= this.maxWaitMs) {
            return this.refuse(e, grant.retryAtMs, grant.refusedBy, waited > 0, !grant.settledLeavesNoRoom);
          }
          // Fits once other in-flight calls settle: wait for one of ours to settle, or poll the item.
          await this.waitForSettlement(e, Math.min(250, this.maxWaitMs - waited));
          continue;
        }
      }
      const now = this.now();
      if (h.capped === false && h.isCurrent(now)) return ADMITTED_FREE;
      if (h.tryReserve(cost, now)) return this.ticket(e, cost);
      if (this.elapsedMs() - waitStartMs >= this.maxWaitMs) {
        // Renewals kept racing other callers of this container: let the next renewal decide at once.
        await this.waitForSettlement(e, 10);
      }
    }
  }

  private refuse(
    e: ScopeEntry,
    retryAtMs: number | null,
    period: BudgetPeriod | null,
    waited: boolean,
    retryable = false,
  ): AdmissionDecision {
    this.metrics.count('AdmissionRefused', {
      Waited: waited ? 'yes' : 'no',
      Retryable: retryable ? 'yes' : 'no',
    });
    const now = this.now();
    const p = period ?? e.holder.exhaustedBy ?? 'day';
    return {
      kind: 'refused',
      period: p,
      capNanos: e.caps?.value[p] ?? null,
      retryAfterSeconds: Math.max(1, Math.ceil(((retryAtMs ?? periodEndMs(p, now)) - now) / 1000)),
      retryable,
    };
  }

  /**
   * The store could not answer (timeout, error, contention). Under a known hard cap: a retryable refusal
   * (never admitted without a reservation). With no cap known, the request path fails open (decision 6).
   */
  private storeUnavailable(e: ScopeEntry): AdmissionDecision {
    const caps = e.caps?.value;
    const capped =
      e.holder.capped === true || (caps !== undefined && (caps.day !== null || caps.month !== null));
    if (capped) {
      this.metrics.count('AdmissionStoreUnavailable');
      return this.refuse(e, this.now() + FAILED_STORE_BACKOFF_MS, null, false, true);
    }
    this.metrics.count('AdmissionFailOpen');
    return this.unreserved();
  }

  private ticket(e: ScopeEntry, reserved: number): AdmissionDecision {
    this.armLeaseTimer(e);
    let done = false;
    return {
      kind: 'admitted',
      ticket: {
        reservedNanos: reserved,
        leased: true,
        settle: (actual) => {
          if (done) return;
          done = true;
          const now = this.now();
          e.holder.settle(reserved, actual === null ? reserved : actual, now);
          this.afterSettle(e);
        },
      },
    };
  }

  /**
   * Admitted without a reservation (failed open): no lease counts it, so its event is not marked `leased`
   * and the pipeline's unleased figure brings it to the cap (one accounting, issue 18.2).
   */
  private unreserved(): AdmissionDecision {
    return ADMITTED_FREE;
  }

  private afterSettle(e: ScopeEntry): void {
    const waiters = e.waiters.splice(0);
    for (const w of waiters) w();
    this.armLeaseTimer(e);
  }

  /**
   * Off the call path, a timer per scope: before the slice expires, a holder with calls in flight renews it
   * and an idle one with unreported spend returns it (core/leases nextLeaseActionAtMs). Spend a slice has
   * covered must reach the item while the slice is live; once it lapses its unused part is free to other
   * holders. Armed once per slice (re-armed only when the instant changes), unref'd. A frozen Lambda
   * container fires it late: that window is bound (b) of docs/admission.md.
   */
  private armLeaseTimer(e: ScopeEntry): void {
    const now = this.now();
    const due = e.holder.nextLeaseActionAtMs(now);
    // After a store failure, not before the back-off ends (no retry loop against a store that is down).
    const at = due === null ? null : Math.max(due, e.timerNotBeforeMs);
    if (at === null) {
      if (e.leaseTimer !== undefined) this.timers.clearTimeout(e.leaseTimer.handle);
      e.leaseTimer = undefined;
      return;
    }
    if (e.leaseTimer?.atMs === at) return;
    if (e.leaseTimer !== undefined) this.timers.clearTimeout(e.leaseTimer.handle);
    const handle = this.timers.setTimeout(
      () => {
        e.leaseTimer = undefined;
        const h = e.holder;
        const due = h.nextLeaseActionAtMs(this.now());
        if (due === null) return;
        if (Math.max(due, e.timerNotBeforeMs) > this.now()) return this.armLeaseTimer(e);
        if (h.reservations > 0) void this.renew(e, 0);
        else void this.release(e);
      },
      Math.max(0, at - now),
    );
    e.leaseTimer = { handle, atMs: at };
  }

  /** Calls fail open for a second; the lease timer waits 1 s, 2 s, 4 s … up to a minute. */
  private storeFailed(e: ScopeEntry): void {
    const now = this.now();
    e.failedUntilMs = now + FAILED_STORE_BACKOFF_MS;
    e.timerNotBeforeMs = now + Math.min(60_000, FAILED_STORE_BACKOFF_MS * 2 ** Math.min(6, e.storeFailures));
    e.storeFailures++;
  }

  /** Returns the scope's slice and reports its spend, when nothing is in flight. Never rejects. */
  private release(e: ScopeEntry): Promise<void> {
    const h = e.holder;
    if (h.capped !== true || h.renewing || h.reservations > 0) return Promise.resolve();
    const report = h.report(0, this.now());
    const tracker: WriteTracker = {};
    const run = async (): Promise<'released'> => {
      try {
        await withTimeout(
          this.opts.leases.release(
            e.scope,
            this.holderId,
            report.request.consumedNanos,
            report.request.held ?? null,
            tracker,
          ),
          this.storeTimeoutMs * LATE_ANSWER_FACTOR,
        );
        e.reading = undefined;
        e.storeFailures = 0;
        h.applyRelease(report);
      } catch {
        this.storeFailed(e);
        h.writeUncertain(report, tracker.inFlight ?? null);
        e.renewal = undefined;
        this.armLeaseTimer(e);
      } finally {
        e.renewal = undefined;
      }
      return 'released';
    };
    const p = run();
    e.renewal = p;
    return p.then(() => undefined);
  }

  private waitForSettlement(e: ScopeEntry, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const t = setTimeout(done, Math.max(1, ms));
      function done(): void {
        clearTimeout(t);
        resolve();
      }
      e.waiters.push(done);
    });
  }

  /**
   * A capped slice was granted under the caps read then. While calls draw on it, the caps are read again
   * at most every `capsTtlMs` (the call that finds them older waits for the read; calls meanwhile share
   * it); caps that changed end the slice, so a lowered cap is in force for every call that begins
   * `capsTtlMs` after it was written, not once the slice drains. Undefined when they are fresh enough.
   */
  private recheckCaps(e: ScopeEntry, now: number): Promise<void> | undefined {
    if (e.capsCheck !== undefined) return e.capsCheck;
    const known = e.caps;
    if (known === undefined || now - known.atMs < this.capsTtlMs) return undefined;
    e.capsCheck = withTimeout(this.opts.leases.caps(e.scope), this.storeTimeoutMs)
      .then(
        (value) => {
          if (e.caps !== known) return; // a renewal read them meanwhile: its slice is under them
          e.caps = { value, atMs: this.now() };
          if (value.day !== known.value.day || value.month !== known.value.month) e.holder.capsChanged();
        },
        () => {
          // Unreadable or slow: the slice serves on (its renewal reads them again), asked again in capsTtlMs.
          if (e.caps === known) e.caps = { value: known.value, atMs: this.now() };
        },
      )
      .finally(() => {
        e.capsCheck = undefined;
      });
    return e.capsCheck;
  }

  private async capsOf(e: ScopeEntry): Promise<CapsNanos> {
    const now = this.now();
    if (e.caps !== undefined && now - e.caps.atMs < this.capsTtlMs) return e.caps.value;
    const value = await this.opts.leases.caps(e.scope);
    e.caps = { value, atMs: now };
    return value;
  }

  /** One lease operation for the scope; concurrent callers share it. */
  private renew(
    e: ScopeEntry,
    needNanos: number,
    wantNanos = 0,
  ): Promise<LeaseGrant | 'failed' | 'released'> {
    if (e.renewal !== undefined) return e.renewal;
    const h = e.holder;
    const report = h.report(needNanos, this.now(), Math.max(0, wantNanos));
    const tracker: WriteTracker = { onReleased: () => h.releasedBeforeRollover(report) };
    const run = async (): Promise<LeaseGrant | 'failed'> => {
      try {
        // The holder waits for the store's answer far longer than a call does (see callWait): a write
        // that is only slow lands, and its answer says what the counter holds for this holder, so no
        // slice is left on the counter that nobody will return (charged as spent once it lapses).
        const out = await withTimeout(
          (async () => {
            const caps = await this.capsOf(e);
            return this.opts.leases.take(
              e.scope,
              report.request,
              { caps, ...(e.reading !== undefined ? { reading: e.reading } : {}) },
              tracker,
            );
          })(),
          this.storeTimeoutMs * LATE_ANSWER_FACTOR,
        );
        e.reading = out.grant.capped ? out.reading : undefined;
        h.applyGrant(report, out.grant, this.now());
        // An uncapped answer lapses when the caps it was given under are capsTtlMs old, so a new cap is in
        // force for every call that begins that long after it was written (CAPS_PROPAGATION_MS).
        if (!out.grant.capped)
          h.expiresAtMs = (e.caps?.atMs ?? this.now()) + this.capsTtlMs + EXPIRY_GUARD_MS;
        e.renewal = undefined;
        e.storeFailures = 0;
        e.failedUntilMs = 0;
        this.armLeaseTimer(e);
        return out.grant;
      } catch {
        // An error, or no answer at all: a write may be on its way: no slice until the next answer, and
        // the belief that can only overcount (LeaseHolderState.writeUncertain). The report is sent again.
        e.reading = undefined;
        this.storeFailed(e);
        h.writeUncertain(report, tracker.inFlight ?? null);
        e.renewal = undefined;
        this.armLeaseTimer(e);
        return 'failed';
      } finally {
        e.renewal = undefined;
      }
    };
    const p = run();
    e.renewal = p;
    return this.callWait(p);
  }

  /**
   * What a call waits for a lease operation: at most the store timeout, then it is answered (a retryable
   * refusal under a hard cap); the operation itself goes on until the store answers, and {@link settled}
   * (before a freeze) and the next renewal wait for it.
   */
  private callWait<T>(p: Promise<T>): Promise<T | 'failed'> {
    return withTimeout(p, this.storeTimeoutMs).catch(() => 'failed' as const);
  }
}
