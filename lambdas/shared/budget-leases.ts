/**
 * Budget leases over the store: read the caps, plan the report with the pure protocol (core/leases), write
 * it with one conditional `ADD`, and on a failed condition re-read and plan again. Used by the relay's
 * in-process holder and by the lease routes the SDK calls (`POST /v1/budget/lease`), so both draw on the
 * same counter.
 */
import { hardCapsOf, type BudgetScope } from '../../core/admission/budget-scopes';
import {
  admissionView,
  counterFigures,
  counterKeys,
  crossesDay,
  hasLapsed,
  DEFAULT_LEASE_POLICY,
  periodsAt,
  planFold,
  planLease,
  planRelease,
  type AdmissionPeriodView,
  type BudgetPeriod,
  type CapsNanos,
  type CounterReading,
  type HeldSlice,
  type LeaseGrant,
  type LeasePolicy,
  type LeaseRequest,
} from '../../core/leases/lease-state';
import { aggregateSk } from '../../core/ledger/aggregate-deltas';
import type { AggregateStore } from './stores/aggregate-store';
import type { BudgetLeaseStore } from './stores/budget-lease-store';
import type { OrgConfigStore } from './stores/org-config-store';

/**
 * How long one reading of the pipeline's aggregates serves lease writes of a scope: spend that reached the
 * pipeline without a holder (telemetry ingest, SDKs without leases) counts within about a second.
 */
const RECORDED_TTL_MS = 1_000;

/**
 * Attempts of one lease operation. A failed condition means another holder took the room since our
 * reading: we re-read and ask again (a grant that no longer fits becomes an exhausted answer, which is
 * written without a condition), so more than a few failures in a row need a stream of competing grants.
 */
const MAX_ATTEMPTS = 6;

/** A counter with more attributes than this is folded (lapsed buckets, past periods) after a write. */
const FOLD_ABOVE_ATTRIBUTES = 24;

/**
 * Raised when grants kept winning the room under us; callers answer a retryable refusal (never fail open
 * past a hard cap, decision 6).
 */
export class LeaseContentionError extends Error {
  constructor(scope: BudgetScope) {
    super(`budget counter of ${scope.orgId} kept changing (${MAX_ATTEMPTS} attempts)`);
    this.name = 'LeaseContentionError';
  }
}

export interface BudgetLeasesOptions {
  readonly store: BudgetLeaseStore;
  readonly config: OrgConfigStore;
  /**
   * The pipeline's day and month aggregates, read at most once a second per scope: their unleased part
   * (spend no holder reports: telemetry, SDKs without leases) counts against the cap on top of what
   * holders reported.
   */
  readonly aggregates?: AggregateStore;
  readonly now: () => number;
  readonly policy?: LeasePolicy;
}

/** What an operation saw and wrote: the grant and the counter after the write (holders cache it). */
export interface LeaseOutcome {
  readonly grant: LeaseGrant;
  readonly reading: CounterReading;
  readonly caps: CapsNanos;
}

/**
 * Filled while a write is on its way: if the caller gives up waiting (a timeout), it knows what the write
 * would hold for it, and keeps the belief that can only overcount (core/leases LeaseHolderState.writeUncertain).
 */
export interface WriteTracker {
  inFlight?: { held: HeldSlice | null; consumedNanos: number };
  /**
   * Called before each counter write with what it would hold for the holder (the lease routes journal it
   * in the holder's record first, so a crash between the two writes resolves to an overcount).
   */
  beforeWrite?: (inFlight: { held: HeldSlice | null; consumedNanos: number }) => Promise<void>;
  /** A renewal across midnight is two writes (core/leases crossesDay): called when the first landed. */
  onReleased?: () => void;
}

export class BudgetLeases {
  readonly policy: LeasePolicy;
  private readonly unleasedCache = new Map<
    string,
    { atMs: number; day: string; month: string; value: Partial<Record<BudgetPeriod, number>> }
  >();

  constructor(private readonly opts: BudgetLeasesOptions) {
    this.policy = opts.policy ?? DEFAULT_LEASE_POLICY;
  }

  /** The hard caps that apply to a scope now. */
  async caps(scope: BudgetScope): Promise<CapsNanos> {
    return hardCapsOf(await this.opts.config.get(scope.orgId));
  }

  /**
   * Takes or renews a holder's slice: one conditional write when `known.reading` (the counter as this
   * holder's last write returned it) still leaves room, else a consistent read and a write. An uncapped
   * answer to a holder that holds nothing and reports nothing writes nothing.
   */
  async take(
    scope: BudgetScope,
    request: LeaseRequest,
    known: { reading?: CounterReading; caps?: CapsNanos } = {},
    tracker: WriteTracker = {},
  ): Promise<LeaseOutcome> {
    let req = request;
    const caps = known.caps ?? (await this.caps(scope));
    const held = req.held ?? null;
    if (caps.day === null && caps.month === null && req.consumedNanos <= 0 && held === null) {
      const now = this.opts.now();
      const reading = known.reading ?? {};
      return { ...planLease(reading, req, caps, now, this.policy), reading, caps };
    }
    const unleased = await this.unleased(scope);
    let reading = known.reading;
    if (crossesDay(held, this.opts.now())) {
      // First write: the old day's slice returns with its spend; then the grant, on its own.
      tracker.inFlight = { held: null, consumedNanos: req.consumedNanos };
      await tracker.beforeWrite?.(tracker.inFlight);
      const now = this.opts.now();
      // A lapsed slice's return consumes a correction's forgiveness, which it reads first.
      const before = hasLapsed(held, now)
        ? (known.reading ?? (await this.opts.store.read(scope)))
        : undefined;
      const after = await this.opts.store.apply(
        scope,
        planRelease({ consumedNanos: req.consumedNanos, held }, now, before),
      );
      tracker.onReleased?.();
      req = { ...req, consumedNanos: 0, held: null };
      reading = after ?? undefined;
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      reading ??= await this.opts.store.read(scope);
      const now = this.opts.now();
      const { delta, grant } = planLease(reading, req, caps, now, this.policy, unleased);
      tracker.inFlight = { held: grant.held, consumedNanos: req.consumedNanos };
      await tracker.beforeWrite?.(tracker.inFlight);
      const after = await this.opts.store.apply(scope, delta);
      if (after !== null) {
        await this.tidy(scope, after, now);
        return { grant, reading: after, caps };
      }
      tracker.inFlight = undefined; // the condition failed: nothing was written
      reading = undefined;
    }
    throw new LeaseContentionError(scope);
  }

  /** A holder's final report: its spend is settled and its slice returned (no condition: always fits). */
  async release(
    scope: BudgetScope,
    holderId: string,
    consumedNanos: number,
    held: HeldSlice | null = null,
    tracker: WriteTracker = {},
  ): Promise<void> {
    if (consumedNanos <= 0 && held === null) return;
    void holderId; // the counter lists no holder; the id names the report in logs and the SDK registry
    tracker.inFlight = { held: null, consumedNanos };
    await tracker.beforeWrite?.(tracker.inFlight);
    const now = this.opts.now();
    // A lapsed slice's return consumes a correction's forgiveness, which it reads first.
    const reading = hasLapsed(held, now) ? await this.opts.store.read(scope) : undefined;
    await this.opts.store.apply(scope, planRelease({ consumedNanos, held }, now, reading));
  }

  /**
   * Adds a signed correction to settled (and committed) spend of the current day and month: the audited
   * admin route (`POST /v1/budget/settled/correct`) records who, when, before and after. The figure
   * corrected is the one admission counts: the counter's settled spend plus the pipeline's unleased
   * spend (forged telemetry lands there, not in the counter), so a correction can take back either. It
   * never goes below zero: the counter's part may go negative by at most the unleased part.
   * @returns the settled figures (counter + unleased) before and after
   */
  /**
   * Adds `deltaNanos` (signed) to today's and this month's settled and committed figures: an admin's
   * correction of what admission counts (the counter's settled spend, the pipeline's unleased spend and
   * lapsed slices, as `GET /v1/budget` shows it). It never takes that below zero: the counter's settled
   * part may go negative by at most the other two. `applied` is the delta after that bound.
   */
  async correctSettled(
    scope: BudgetScope,
    deltaNanos: number,
  ): Promise<{ before: Record<BudgetPeriod, number>; after: Record<BudgetPeriod, number>; applied: number }> {
    const now = this.opts.now();
    const p = periodsAt(now);
    const [before, unleased] = await Promise.all([this.opts.store.read(scope), this.unleased(scope)]);
    // What admission counts: a holder's lapsed slice (a key that parked room and vanished) is part of it,
    // so a correction can take that back too, not only settled spend.
    const figure = (r: CounterReading): Record<BudgetPeriod, number> => {
      const f = counterFigures(r, now);
      return {
        day: f.settled.day + (unleased.day ?? 0) + f.lapsed.day,
        month: f.settled.month + (unleased.month ?? 0) + f.lapsed.month,
      };
    };
    const applied = Math.max(deltaNanos, -figure(before).day);
    // Taken back from lapsed slices first (forgiven: a holder that returns one consumes it, so the
    // correction is not undone twice), then from settled spend.
    const fromLapsed =
      applied < 0 ? Math.min(-applied, Math.max(0, counterFigures(before, now).lapsed.day)) : 0;
    const fromSettled = applied + fromLapsed;
    const add: Record<string, number> = {};
    for (const [per, id] of [
      ['day', p.day],
      ['month', p.month],
    ] as const) {
      add[counterKeys.committed(per, id)] = applied;
      if (fromSettled !== 0) add[counterKeys.settled(per, id)] = fromSettled;
      if (fromLapsed > 0) add[counterKeys.forgiven(per, id)] = fromLapsed;
    }
    const after = (await this.opts.store.apply(scope, { add, atMost: {} })) ?? before;
    return { before: figure(before), after: figure(after), applied };
  }

  /** The admission panel of `GET /v1/budget` (nano-USD). */
  async view(scope: BudgetScope, caps: CapsNanos): Promise<Record<BudgetPeriod, AdmissionPeriodView>> {
    const [reading, unleased] = await Promise.all([this.opts.store.read(scope), this.unleased(scope)]);
    return admissionView(reading, caps, this.opts.now(), unleased);
  }

  /** Folds lapsed buckets and past periods once the counter has grown (best effort, never throws). */
  private async tidy(scope: BudgetScope, reading: CounterReading, now: number): Promise<void> {
    if (Object.keys(reading).length <= FOLD_ABOVE_ATTRIBUTES) return;
    const fold = planFold(reading, now);
    if (fold === null) return;
    try {
      await this.opts.store.fold(scope, fold);
    } catch {
      // The next write folds instead.
    }
  }

  /**
   * Spend the pipeline recorded in the current day and month that no budget lease counted (events say
   * which: TelemetryEvent.leased), so a cap set mid-day counts what was spent before it and telemetry
   * counts once. Read at most once per {@link RECORDED_TTL_MS}; a failed read observes nothing.
   */
  private async unleased(scope: BudgetScope): Promise<Partial<Record<BudgetPeriod, number>>> {
    const aggregates = this.opts.aggregates;
    if (aggregates === undefined) return {};
    const now = this.opts.now();
    const p = periodsAt(now);
    const cached = this.unleasedCache.get(scope.orgId);
    if (cached?.day === p.day && cached.month === p.month && now - cached.atMs < RECORDED_TTL_MS) {
      return cached.value;
    }
    try {
      // A range of one key reads the period's total row only.
      const total = async (sk: string) =>
        (await aggregates.range(scope.orgId, sk, sk))[0]?.unleasedCostNanos ?? 0;
      const [day, month] = await Promise.all([
        total(aggregateSk.day(p.day)),
        total(aggregateSk.month(p.month)),
      ]);
      const value = { day, month };
      this.unleasedCache.set(scope.orgId, { atMs: now, day: p.day, month: p.month, value });
      return value;
    } catch {
      return {};
    }
  }
}
