/**
 * Budget leases over the store: read the caps and the item, apply the pure state machine (core/leases),
 * write on the version, retry on a lost race. Used by the relay's in-process holder and by the lease
 * routes the SDK calls (`POST /v1/budget/lease`), so both draw on the same item.
 */
import { hardCapsOf, type BudgetScope } from '../../core/admission/budget-scopes';
import {
  admissionView,
  DEFAULT_LEASE_POLICY,
  emptyLeaseState,
  grantLease,
  observeRecorded,
  periodsAt,
  releaseLease,
  rollover,
  type AdmissionPeriodView,
  type BudgetPeriod,
  type CapsNanos,
  type LeaseGrant,
  type LeasePolicy,
  type LeaseRequest,
  type LeaseState,
} from '../../core/leases/lease-state';
import { aggregateSk } from '../../core/ledger/aggregate-deltas';
import type { AggregateStore } from './stores/aggregate-store';
import type { BudgetLeaseStore } from './stores/budget-lease-store';
import type { OrgConfigStore } from './stores/org-config-store';

/**
 * How long one reading of the pipeline's aggregates serves lease writes of a scope. Near the cap every
 * admission is a write; this keeps the extra read to one a second per container while spend that reached
 * the pipeline without a holder (telemetry ingest, SDKs without leases) still counts within about a second.
 */
const RECORDED_TTL_MS = 1_000;

/** Attempts of one lease operation before giving up (each lost race re-reads the item). */
const MAX_ATTEMPTS = 10;

/** After a lost race: a jittered wait (full jitter, 2^attempt ms up to 64 ms) so racers spread out. */
function backoff(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(64, 2 ** attempt)));
}

/** Raised when the item kept changing under us; callers treat it as a store failure (fail open). */
export class LeaseContentionError extends Error {
  constructor(scope: BudgetScope) {
    super(`budget lease item of ${scope.orgId} kept changing (${MAX_ATTEMPTS} attempts)`);
    this.name = 'LeaseContentionError';
  }
}

export interface BudgetLeasesOptions {
  readonly store: BudgetLeaseStore;
  readonly config: OrgConfigStore;
  /**
   * The pipeline's day and month aggregates, observed on every lease write (at most once a second per
   * scope): settled spend counts what the pipeline recorded even when no holder reported it.
   */
  readonly aggregates?: AggregateStore;
  readonly now: () => number;
  readonly policy?: LeasePolicy;
}

/** What an operation saw and wrote: the grant and the item as stored (holders cache it). */
export interface LeaseOutcome {
  readonly grant: LeaseGrant;
  readonly state: LeaseState;
  readonly caps: CapsNanos;
}

export class BudgetLeases {
  readonly policy: LeasePolicy;
  private readonly recordedCache = new Map<
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
   * Takes or renews a holder's slice. `known.state` (the item as this holder last wrote it) saves the read
   * when nobody else wrote since: then the operation is one conditional write. `known.caps` saves the
   * config read. An uncapped answer to a holder that holds nothing and reports nothing writes nothing.
   */
  async take(
    scope: BudgetScope,
    req: LeaseRequest,
    known: { state?: LeaseState; caps?: CapsNanos } = {},
  ): Promise<LeaseOutcome> {
    const caps = known.caps ?? (await this.caps(scope));
    if (caps.day === null && caps.month === null && req.consumedNanos === 0 && req.reservedNanos === 0) {
      // Nothing to record and nothing to grant: no item read or write (a slice this holder may still have
      // in the item expires on its own).
      const now = this.opts.now();
      const base = known.state ?? emptyLeaseState(now);
      return { ...grantLease(base, req, caps, now, this.policy), state: base, caps };
    }
    // A cached item of a past day or month is read again: the new period is seeded from the aggregates.
    const today = periodsAt(this.opts.now());
    const fresh =
      known.state !== undefined && known.state.day === today.day && known.state.month === today.month;
    let current = fresh ? { state: known.state as LeaseState, exists: true } : undefined;
    const recorded = await this.recorded(scope);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = current ?? (await this.load(scope));
      const now = this.opts.now();
      const base = observeRecorded(stored.state, recorded, now);
      const { state, grant } = grantLease(base, req, caps, now, this.policy);
      if (await this.opts.store.save(scope, state, stored.exists ? stored.state.version : undefined)) {
        return { grant, state, caps };
      }
      current = undefined;
      await backoff(attempt);
    }
    throw new LeaseContentionError(scope);
  }

  /** A holder's final report: its consumption is settled and its slice returned. */
  async release(scope: BudgetScope, holderId: string, consumedNanos: number): Promise<void> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = await this.load(scope);
      if (!stored.exists && consumedNanos === 0) return;
      const now = this.opts.now();
      const base = observeRecorded(stored.state, await this.recorded(scope), now);
      const next = releaseLease(base, holderId, consumedNanos, now);
      if (await this.opts.store.save(scope, next, stored.exists ? stored.state.version : undefined)) return;
      await backoff(attempt);
    }
    throw new LeaseContentionError(scope);
  }

  /** The admission panel of `GET /v1/budget` (nano-USD). */
  async view(scope: BudgetScope, caps: CapsNanos): Promise<Record<BudgetPeriod, AdmissionPeriodView>> {
    const [stored, recorded] = await Promise.all([this.opts.store.load(scope), this.recorded(scope)]);
    const now = this.opts.now();
    return admissionView(observeRecorded(stored ?? emptyLeaseState(now), recorded, now), caps, now);
  }

  /** The item, or a fresh one; an item of a past day (month) is rolled over to the current one. */
  private async load(scope: BudgetScope): Promise<{ state: LeaseState; exists: boolean }> {
    const stored = await this.opts.store.load(scope);
    const now = this.opts.now();
    if (stored === undefined) return { state: emptyLeaseState(now), exists: false };
    return { state: rollover(stored, now), exists: true };
  }

  /**
   * Spend the pipeline recorded in the current day and month, whatever path it came by (a cap set mid-day
   * counts what was spent before it). Read at most once per {@link RECORDED_TTL_MS}; a failed read
   * observes nothing new (the item keeps the last figure it saw).
   */
  private async recorded(scope: BudgetScope): Promise<Partial<Record<BudgetPeriod, number>>> {
    const aggregates = this.opts.aggregates;
    if (aggregates === undefined) return {};
    const now = this.opts.now();
    const p = periodsAt(now);
    const cached = this.recordedCache.get(scope.orgId);
    if (cached?.day === p.day && cached.month === p.month && now - cached.atMs < RECORDED_TTL_MS) {
      return cached.value;
    }
    try {
      // A range of one key reads the period's total row only (a prefix would also read its per-model,
      // per-project and per-feature rows).
      const total = async (sk: string) => (await aggregates.range(scope.orgId, sk, sk))[0]?.costNanos ?? 0;
      const [day, month] = await Promise.all([
        total(aggregateSk.day(p.day)),
        total(aggregateSk.month(p.month)),
      ]);
      const value = { day, month };
      this.recordedCache.set(scope.orgId, { atMs: now, day: p.day, month: p.month, value });
      return value;
    } catch {
      return {};
    }
  }
}
