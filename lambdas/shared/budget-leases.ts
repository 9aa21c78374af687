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
  /** Seeds a new item's settled spend from the pipeline's day and month aggregates. */
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
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = current ?? (await this.load(scope));
      const { state, grant } = grantLease(stored.state, req, caps, this.opts.now(), this.policy);
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
      const next = releaseLease(stored.state, holderId, consumedNanos, this.opts.now());
      if (await this.opts.store.save(scope, next, stored.exists ? stored.state.version : undefined)) return;
      await backoff(attempt);
    }
    throw new LeaseContentionError(scope);
  }

  /** The admission panel of `GET /v1/budget` (nano-USD). */
  async view(scope: BudgetScope, caps: CapsNanos): Promise<Record<BudgetPeriod, AdmissionPeriodView>> {
    const now = this.opts.now();
    const stored = await this.opts.store.load(scope);
    return admissionView(stored ?? emptyLeaseState(now), caps, now);
  }

  private async load(scope: BudgetScope): Promise<{ state: LeaseState; exists: boolean }> {
    const stored = await this.opts.store.load(scope);
    const now = this.opts.now();
    if (stored === undefined) return { state: emptyLeaseState(now, await this.seed(scope)), exists: false };
    const p = periodsAt(now);
    if (stored.day === p.day && stored.month === p.month) return { state: stored, exists: true };
    // The first write of a new day (month): start from what the pipeline already recorded in it, which
    // includes spend that no holder reported (calls made before any lease of the period).
    const rolled = rollover(stored, now);
    const seed = await this.seed(scope);
    return {
      state: {
        ...rolled,
        settled: {
          day: Math.max(rolled.settled.day, seed.day ?? 0),
          month: Math.max(rolled.settled.month, seed.month ?? 0),
        },
      },
      exists: true,
    };
  }

  /** Spend already recorded by the pipeline in the current day and month (a cap set mid-day counts it). */
  private async seed(scope: BudgetScope): Promise<Partial<Record<BudgetPeriod, number>>> {
    const aggregates = this.opts.aggregates;
    if (aggregates === undefined) return {};
    const p = periodsAt(this.opts.now());
    const [day, month] = await Promise.all([
      aggregates.list(scope.orgId, aggregateSk.day(p.day)),
      aggregates.list(scope.orgId, aggregateSk.month(p.month)),
    ]);
    return {
      day: day.find((r) => r.sk === aggregateSk.day(p.day))?.costNanos ?? 0,
      month: month.find((r) => r.sk === aggregateSk.month(p.month))?.costNanos ?? 0,
    };
  }
}
