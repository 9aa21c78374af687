/**
 * Budget leases (design decision 12), the pure state machine of one budget item: an organization's
 * settled spend per period and the slices its holders (relay containers, SDK processes) hold.
 *
 * A holder takes a slice with one conditional write, admits calls against it in memory, and reports what it
 * consumed when it renews or releases. The item's invariant, for every capped period p:
 *
 *     settled[p] + Σ live slices ≤ cap[p]        (a slice is "live" until its expiry)
 *
 * so as long as each holder spends only within its slice, spend never passes the cap. "Settled" is the larger of
 * two figures: what holders reported, and what the pipeline's aggregates recorded as last read by a writer
 * (spend that no holder reports: telemetry ingest, an SDK without a lease, a holder that vanished before
 * reporting). Both are lower bounds of the true spend, so their maximum is one too: it never over-refuses. Slices are sized by
 * the holder's spend rate (few writes far from the cap) and shrink with what is left (a fair share of the
 * remainder), so near the cap a slice is exactly the call waiting for it: admission becomes per call and
 * exact. A slice expires at `min(now + ttl, end of the day)`: a holder that vanished strands its slice only
 * until then, and no slice outlives its period. See docs/admission.md for the bound and its argument.
 *
 * Nothing here reads a clock or a store: time, caps and the stored state come in as arguments.
 */
import { utcDayEnd } from '../guardrails/periods';

/** The periods a hard cap can cover (organization daily and monthly caps, spec 1.4). */
export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** Cap per period in nano-USD; null = no hard (`block`) cap for that period. */
export type CapsNanos = Readonly<Record<BudgetPeriod, number | null>>;

/** One holder's slice as the item records it. */
export interface HolderLease {
  /** The whole slice held (it covers the holder's in-flight reservations), nano-USD. */
  readonly sliceNanos: number;
  /** After this instant (ms) the slice counts for nothing: it is back in the budget. */
  readonly expiresAtMs: number;
  /** The day (`2026-11-23`) and month (`2026-11`) the slice was granted in. */
  readonly day: string;
  readonly month: string;
  /** In-flight reservations at the holder's last report (the admission panel shows them). */
  readonly reservedNanos: number;
  readonly reservations: number;
}

/** The budget item of one scope (today: one organization). */
export interface LeaseState {
  /** Incremented by every write; stores write on the condition that it did not change. */
  readonly version: number;
  readonly day: string;
  readonly month: string;
  /** Spend reported by holders in the current day and month, nano-USD. */
  readonly settled: Readonly<Record<BudgetPeriod, number>>;
  /**
   * The pipeline's day and month aggregates as last observed by a writer, nano-USD (see
   * {@link observeRecorded}). Admission counts `max(settled, recorded)` per period: see {@link settledSpend}.
   */
  readonly recorded: Readonly<Record<BudgetPeriod, number>>;
  readonly holders: Readonly<Record<string, HolderLease>>;
}

/** How slices are sized. */
export interface LeasePolicy {
  /** Lifetime of a slice. @default 30 s */
  readonly ttlMs: number;
  /**
   * Writes per second one budget item should see, whatever the call rate. A holder's slice covers its
   * spend for `holders / targetWritesPerSecond` seconds (at least {@link minCoverSeconds}).
   * @default 100 (DynamoDB serves about 1,000 writes/s to one partition key)
   */
  readonly targetWritesPerSecond: number;
  /** @default 2 s */
  readonly minCoverSeconds: number;
  /** Headroom granted to a holder with no spend history. @default 0.01 USD */
  readonly minHeadroomNanos: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = Object.freeze({
  ttlMs: 30_000,
  targetWritesPerSecond: 100,
  minCoverSeconds: 2,
  minHeadroomNanos: 10_000_000,
});

/** A holder's renewal: what it consumed since its last report and what it needs now. */
export interface LeaseRequest {
  readonly holderId: string;
  /** Actual spend settled by the holder since its previous report, nano-USD. */
  readonly consumedNanos: number;
  /** Reservations still in flight: the new slice keeps covering them (they are committed). */
  readonly reservedNanos: number;
  readonly reservations: number;
  /** The call waiting for admission (0 for a plain renewal): granted on top of the reservations, or refused. */
  readonly needNanos: number;
  /** The holder's recent spend rate, nano-USD per second (sizes the headroom). */
  readonly rateNanosPerSecond: number;
  /**
   * Demand already queued at the holder beyond `needNanos` (other calls waiting for this answer): granted
   * as headroom when larger than the rate-based one, within the same fair share. @default 0
   */
  readonly wantNanos?: number;
}

/** The answer to a {@link LeaseRequest}. */
export interface LeaseGrant {
  /** False when no hard cap applies: the holder admits everything and only reports. */
  readonly capped: boolean;
  /** The whole slice now held (reservations + need + headroom), nano-USD. 0 when uncapped. */
  readonly sliceNanos: number;
  /** True when the need does not fit (the slice then covers only the reservations). */
  readonly exhausted: boolean;
  /**
   * When exhausted: true if settled spend alone leaves no room for the need (refuse now); false if the
   * need would fit once in-flight reservations and other holders' slices are settled or returned (wait).
   */
  readonly settledLeavesNoRoom: boolean;
  /** Expiry of the slice (ms); for an uncapped answer, when to ask again. */
  readonly expiresAtMs: number;
  /** End of the tightest capped period that refused (ms), for `Retry-After`; null when not exhausted. */
  readonly retryAtMs: number | null;
  /** The capped period that refused (the tightest), or null when not exhausted. */
  readonly refusedBy: BudgetPeriod | null;
  /**
   * `cap − settled` after this report (min over capped periods), nano-USD; null uncapped. Settled spend
   * only grows within a period, so while the caps stand a call larger than this cannot fit: the holder
   * refuses it without asking again.
   */
  readonly roomNanos: number | null;
  /** What was free to this holder before the grant (min over capped periods), nano-USD; null uncapped. */
  readonly freeNanos: number | null;
}

/** Per-period view for `GET /v1/budget` (CONTRACTS.md §3), in nano-USD. */
export interface AdmissionPeriodView {
  readonly capNanos: number | null;
  readonly settledNanos: number;
  readonly reservedNanos: number;
  readonly outstandingReservations: number;
  readonly leasedNanos: number;
  readonly holders: number;
}

/** The current day (`YYYY-MM-DD`, UTC) and month (`YYYY-MM`) of an instant, with the day's end. */
export function periodsAt(nowMs: number): { day: string; month: string; dayEndMs: number } {
  const iso = new Date(nowMs).toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7), dayEndMs: utcDayEnd(nowMs) };
}

/** End (ms) of the period `p` containing `nowMs`. */
export function periodEndMs(p: BudgetPeriod, nowMs: number): number {
  if (p === 'day') return utcDayEnd(nowMs);
  const d = new Date(nowMs);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

/** A fresh item for the periods of `nowMs`, with the pipeline's recorded spend (its aggregates) if known. */
export function emptyLeaseState(
  nowMs: number,
  recorded: Partial<Record<BudgetPeriod, number>> = {},
): LeaseState {
  const p = periodsAt(nowMs);
  return {
    version: 0,
    day: p.day,
    month: p.month,
    settled: { day: 0, month: 0 },
    recorded: { day: recorded.day ?? 0, month: recorded.month ?? 0 },
    holders: {},
  };
}

/**
 * The spend admission counts per period: the larger of what holders reported and what the pipeline
 * recorded. Each is at most the true spend, so the maximum never counts a call twice; it misses only spend
 * that neither has seen yet (calls still in flight, or settled in the last moments before the pipeline).
 */
export function settledSpend(state: LeaseState): Record<BudgetPeriod, number> {
  return {
    day: Math.max(state.settled.day, state.recorded.day),
    month: Math.max(state.settled.month, state.recorded.month),
  };
}

/**
 * The state with the pipeline's aggregates for the periods of `nowMs` observed (they only grow within a
 * period; an older, smaller reading changes nothing). Writers call it before granting or releasing, so
 * spend that never passed a holder still counts against the cap within one aggregate read.
 */
export function observeRecorded(
  state: LeaseState,
  observed: Partial<Record<BudgetPeriod, number>>,
  nowMs: number,
): LeaseState {
  const rolled = rollover(state, nowMs);
  const clean = (n: number | undefined) => (typeof n === 'number' && Number.isFinite(n) ? Math.max(0, n) : 0);
  return {
    ...rolled,
    recorded: {
      day: Math.max(rolled.recorded.day, clean(observed.day)),
      month: Math.max(rolled.recorded.month, clean(observed.month)),
    },
  };
}

/**
 * The state moved to the periods of `nowMs`: a new day (month) starts at zero settled spend, and expired
 * slices are dropped (their unused part is back in the budget).
 */
export function rollover(state: LeaseState, nowMs: number): LeaseState {
  const p = periodsAt(nowMs);
  const holders: Record<string, HolderLease> = {};
  for (const [id, h] of Object.entries(state.holders)) if (h.expiresAtMs > nowMs) holders[id] = h;
  return {
    version: state.version,
    day: p.day,
    month: p.month,
    settled: {
      day: p.day === state.day ? state.settled.day : 0,
      month: p.month === state.month ? state.settled.month : 0,
    },
    recorded: {
      day: p.day === state.day ? state.recorded.day : 0,
      month: p.month === state.month ? state.recorded.month : 0,
    },
    holders,
  };
}

function isCapped(caps: CapsNanos): boolean {
  return caps.day !== null || caps.month !== null;
}

/** Settled spend plus a holder's report, counted in the periods its slice belonged to. */
function withConsumption(
  state: LeaseState,
  previous: HolderLease | undefined,
  consumedNanos: number,
): Record<BudgetPeriod, number> {
  const c = Math.max(0, Math.round(consumedNanos));
  return {
    // A slice of a past day reports spend of that day: it no longer counts against today.
    day: state.settled.day + (previous === undefined || previous.day === state.day ? c : 0),
    month: state.settled.month + (previous === undefined || previous.month === state.month ? c : 0),
  };
}

/** Live slices of holders other than `except`. */
function othersLeased(state: LeaseState, except: string): number {
  let sum = 0;
  for (const [id, h] of Object.entries(state.holders)) if (id !== except) sum += h.sliceNanos;
  return sum;
}

/**
 * Takes or renews `req.holderId`'s slice. The previous slice is returned whole (its consumed part moves to
 * settled spend); the new slice covers the in-flight reservations, then the need, then a headroom of
 * `rate × max(minCoverSeconds, holders / targetWritesPerSecond)`, capped at a fair share of what is left
 * (`free / (2 × live holders)`), so slices shrink towards the cap.
 *
 * @example
 * // $0.30 daily cap, nothing spent, one holder asking for a $0.006 call with no history:
 * // free = 300,000,000; slice = 6,000,000 + min(10,000,000, (300,000,000 − 6,000,000) / 2) = 16,000,000
 */
export function grantLease(
  state: LeaseState,
  req: LeaseRequest,
  caps: CapsNanos,
  nowMs: number,
  policy: LeasePolicy = DEFAULT_LEASE_POLICY,
): { state: LeaseState; grant: LeaseGrant } {
  const previous = state.holders[req.holderId];
  const rolled = rollover(state, nowMs);
  const settled = withConsumption(rolled, previous, req.consumedNanos);
  const holders: Record<string, HolderLease> = { ...rolled.holders };
  delete holders[req.holderId];
  const p = periodsAt(nowMs);

  if (!isCapped(caps)) {
    return {
      state: { ...rolled, version: rolled.version + 1, settled, holders },
      grant: {
        capped: false,
        sliceNanos: 0,
        exhausted: false,
        settledLeavesNoRoom: false,
        expiresAtMs: Math.min(nowMs + policy.ttlMs, p.dayEndMs),
        retryAtMs: null,
        refusedBy: null,
        roomNanos: null,
        freeNanos: null,
      },
    };
  }

  const others = othersLeased(rolled, req.holderId);
  const counted = settledSpend({ ...rolled, settled });
  let free = Number.POSITIVE_INFINITY;
  let roomAfterSettled = Number.POSITIVE_INFINITY;
  let tightest: BudgetPeriod = 'day';
  for (const period of BUDGET_PERIODS) {
    const cap = caps[period];
    if (cap === null) continue;
    const f = cap - counted[period] - others;
    if (f < free) {
      free = f;
      tightest = period;
    }
    roomAfterSettled = Math.min(roomAfterSettled, cap - counted[period]);
  }
  const reserved = Math.max(0, Math.round(req.reservedNanos));
  const need = Math.max(0, Math.round(req.needNanos));
  const spare = free - reserved - need;
  const exhausted = need > 0 ? spare < 0 : free - reserved <= 0;
  let slice: number;
  if (spare < 0) {
    // Reservations already in flight are committed money: they stay covered even when over (a call that
    // cost more than its worst case, or a stall past expiry); nothing new is granted.
    slice = reserved;
  } else {
    const liveHolders = Object.keys(holders).length + 1;
    const coverSeconds = Math.max(policy.minCoverSeconds, liveHolders / policy.targetWritesPerSecond);
    const byRate = Math.max(
      policy.minHeadroomNanos,
      Math.round(req.rateNanosPerSecond * coverSeconds),
      Math.round(req.wantNanos ?? 0),
    );
    const fairShare = Math.floor(spare / (2 * liveHolders));
    slice = reserved + need + Math.min(byRate, fairShare);
  }
  const expiresAtMs = Math.min(nowMs + policy.ttlMs, p.dayEndMs);
  if (slice > 0 || req.reservations > 0) {
    holders[req.holderId] = {
      sliceNanos: slice,
      expiresAtMs,
      day: rolled.day,
      month: rolled.month,
      reservedNanos: reserved,
      reservations: Math.max(0, Math.round(req.reservations)),
    };
  }
  return {
    state: { ...rolled, version: rolled.version + 1, settled, holders },
    grant: {
      capped: true,
      sliceNanos: slice,
      exhausted,
      settledLeavesNoRoom: exhausted && roomAfterSettled < need,
      expiresAtMs,
      retryAtMs: exhausted ? periodEndMs(tightest, nowMs) : null,
      refusedBy: exhausted ? tightest : null,
      roomNanos: roomAfterSettled,
      freeNanos: free,
    },
  };
}

/** Final report of a holder: its consumption is settled and its whole slice returns. */
export function releaseLease(
  state: LeaseState,
  holderId: string,
  consumedNanos: number,
  nowMs: number,
): LeaseState {
  const previous = state.holders[holderId];
  const rolled = rollover(state, nowMs);
  const holders: Record<string, HolderLease> = { ...rolled.holders };
  delete holders[holderId];
  return {
    ...rolled,
    version: rolled.version + 1,
    settled: withConsumption(rolled, previous, consumedNanos),
    holders,
  };
}

/** The admission panel of one period (live slices only). */
export function admissionView(
  state: LeaseState,
  caps: CapsNanos,
  nowMs: number,
): Record<BudgetPeriod, AdmissionPeriodView> {
  const rolled = rollover(state, nowMs);
  const live = Object.values(rolled.holders);
  const sum = (f: (h: HolderLease) => number) => live.reduce((n, h) => n + f(h), 0);
  const counted = settledSpend(rolled);
  const view = (period: BudgetPeriod): AdmissionPeriodView => ({
    capNanos: caps[period],
    settledNanos: counted[period],
    reservedNanos: sum((h) => h.reservedNanos),
    outstandingReservations: sum((h) => h.reservations),
    leasedNanos: sum((h) => h.sliceNanos),
    holders: live.length,
  });
  return { day: view('day'), month: view('month') };
}
