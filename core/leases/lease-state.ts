/**
 * Budget leases (design decision 12), the pure protocol of one budget counter: an organization's committed
 * and settled spend per period, kept as numbers the store changes with server-side conditional arithmetic
 * (`UpdateItem … ADD … ConditionExpression committed <= :limit`), never by replacing a whole item.
 *
 * For every capped period p the counter keeps `committed[p] = settled[p] + Σ unreturned slices of p`, and a
 * write that grows `committed[p]` by A carries the condition `committed[p] ≤ cap[p] − A`. So no two holders
 * can spend the same remainder, whatever the number of writers: concurrent grants that fit all succeed
 * (no version to race on); near the cap the condition fails and the writer re-reads and asks for less.
 *
 * A holder knows what the counter holds for it (its {@link HeldSlice}); every report returns that slice
 * whole, adds what it spent, and takes a new one, in one write. A slice that lapses unreturned (a frozen
 * or crashed holder) stays counted: it is charged as spent (never past the cap) until its holder reports,
 * which returns it. Slices are filed in 10 s expiry buckets, so the counter knows how much of its committed
 * figure is lapsed (charged) and how many holders are live (fair shares) without listing any holder.
 *
 * Nothing here reads a clock or a store: time, caps and the stored numbers come in as arguments.
 */
import { utcDayEnd } from '../guardrails/periods';

/** The periods a hard cap can cover (organization daily and monthly caps, spec 1.4). */
export const BUDGET_PERIODS = ['day', 'month'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

/** Cap per period in nano-USD; null = no hard (`block`) cap for that period. */
export type CapsNanos = Readonly<Record<BudgetPeriod, number | null>>;

/** Slices are filed by expiry in buckets of this width (the counter's attribute count stays small). */
export const BUCKET_MS = 10_000;
/**
 * Slices granted near the end of a day end at `dayEnd + spread(holder)`, spread over this window, so a
 * fleet does not renew all at once at 00:00 UTC. A slice's spend counts in the day it was granted.
 */
export const ROLLOVER_SPREAD_MS = 10_000;
/** Lapsed buckets older than this are folded into one lapsed figure per period (the item stays small). */
export const FOLD_AFTER_MS = 60_000;

/** The counter of one scope as read: attribute name → integer nano-USD (or a holder count). */
export type CounterReading = Readonly<Record<string, number>>;

/** Attribute names of the counter (one per period or per expiry bucket; none per holder). */
export const counterKeys = {
  committed: (p: BudgetPeriod, id: string) => `c${p === 'day' ? 'D' : 'M'}#${id}`,
  settled: (p: BudgetPeriod, id: string) => `s${p === 'day' ? 'D' : 'M'}#${id}`,
  lapsed: (p: BudgetPeriod, id: string) => `l${p === 'day' ? 'D' : 'M'}#${id}`,
  /**
   * Lapsed room an admin's correction took back (`POST /v1/budget/settled/correct`): lapsed slices are
   * charged less by it. A holder that returns a lapsed slice consumes it first ({@link chargedLapsed}).
   */
  forgiven: (p: BudgetPeriod, id: string) => `f${p === 'day' ? 'D' : 'M'}#${id}`,
  bucket: (day: string, endMs: number) => `b#${day}#${endMs}`,
  bucketHolders: (day: string, endMs: number) => `n#${day}#${endMs}`,
  /** In-flight reservations the bucket's holders last reported, and their count (the admission panel). */
  bucketReserved: (day: string, endMs: number) => `r#${day}#${endMs}`,
  bucketReservations: (day: string, endMs: number) => `q#${day}#${endMs}`,
};

type BucketKind = 'b' | 'n' | 'r' | 'q';

/** An expiry bucket read back from its attribute name. */
export function parseBucketKey(key: string): { kind: BucketKind; day: string; endMs: number } | null {
  const m = /^([bnrq])#(\d{4}-\d{2}-\d{2})#(\d{1,16})$/.exec(key);
  if (m === null) return null;
  return { kind: m[1] as BucketKind, day: m[2] as string, endMs: Number(m[3]) };
}

/** What the counter holds for one holder: its unreturned slice and where it is filed. */
export interface HeldSlice {
  readonly sliceNanos: number;
  readonly day: string;
  readonly month: string;
  readonly bucketEndMs: number;
  /** The reservations the report that took it listed (filed with it for the admission panel). @default 0 */
  readonly reservedNanos?: number;
  readonly reservations?: number;
}

/** How slices are sized. */
export interface LeasePolicy {
  /** Lifetime of a slice. @default 30 s */
  readonly ttlMs: number;
  /**
   * Writes per second one counter should see, whatever the call rate. A holder's slice covers its spend
   * for `holders / targetWritesPerSecond` seconds (at least {@link minCoverSeconds}).
   * @default 100 (DynamoDB serves about 1,000 WCU/s to one partition key; a write here is 1 WCU)
   */
  readonly targetWritesPerSecond: number;
  /** @default 2 s */
  readonly minCoverSeconds: number;
  /** Headroom granted to a holder with no spend history. @default 0.01 USD */
  readonly minHeadroomNanos: number;
  /**
   * Lifetime of an uncapped answer: a holder (an SDK process) asks again this often while it makes calls,
   * so a cap set later reaches it within that time plus one request. (The relay's containers re-check
   * theirs every 500 ms: lambdas/shared/caps-propagation.ts.) @default 10 s
   */
  readonly uncappedTtlMs: number;
}

export const DEFAULT_LEASE_POLICY: LeasePolicy = Object.freeze({
  ttlMs: 30_000,
  targetWritesPerSecond: 100,
  minCoverSeconds: 2,
  minHeadroomNanos: 10_000_000,
  uncappedTtlMs: 10_000,
});

/** A holder's report: what it spent since its last report, what it holds, and what it needs now. */
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
  /** Demand queued at the holder beyond `needNanos`, granted as headroom within the fair share. @default 0 */
  readonly wantNanos?: number;
  /**
   * The least headroom granted (policy.minHeadroomNanos when absent). The API route sets 0 for a request
   * that reports no spend, no reservation and no need: a holder that claims nothing gets nothing to park.
   */
  readonly minHeadroomNanos?: number;
  /** What the counter holds for this holder (returned whole by this report); null: nothing. @default null */
  readonly held?: HeldSlice | null;
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
   * When exhausted: true if settled spend (lapsed slices counted as spent) leaves no room for the need:
   * refuse, not retryable. False: the room is held by live slices or in-flight reservations (retryable).
   */
  readonly settledLeavesNoRoom: boolean;
  /** Expiry of the slice (ms); for an uncapped answer, when to ask again. */
  readonly expiresAtMs: number;
  /** True when the slice ends with its day (renew just after it, not before). */
  readonly endsWithPeriod: boolean;
  /**
   * When exhausted: the end of the refusing period (settled leaves no room), else the earliest instant
   * room can come back (the next live slice's expiry, at least 1 s ahead). Null when not exhausted.
   */
  readonly retryAtMs: number | null;
  /** The capped period that refused (the tightest), or null when not exhausted. */
  readonly refusedBy: BudgetPeriod | null;
  /** `cap − settled` after this report (min over capped periods), nano-USD; null uncapped. */
  readonly roomNanos: number | null;
  /** What was free to this holder before the grant (min over capped periods), nano-USD; null uncapped. */
  readonly freeNanos: number | null;
  /** What the counter holds for the holder after this write (its next report returns it). */
  readonly held: HeldSlice | null;
}

/** One atomic change of the counter: signed additions, on the conditions `attr ≤ limit` (absent = 0). */
export interface CounterDelta {
  readonly add: Readonly<Record<string, number>>;
  readonly atMost: Readonly<Record<string, number>>;
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

/** A holder's place in the rollover window: a stable offset in [0, ROLLOVER_SPREAD_MS) from its id (FNV-1a). */
export function rolloverSpreadMs(holderId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < holderId.length; i++) {
    h ^= holderId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % ROLLOVER_SPREAD_MS;
}

function val(r: CounterReading, key: string): number {
  const v = r[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

function periodId(p: BudgetPeriod, day: string): string {
  return p === 'day' ? day : day.slice(0, 7);
}

/**
 * Lapsed room still charged: the lapsed slices less what a correction forgave (never below zero; a
 * forgiveness driven below zero by two returns at once forgives nothing: that errs towards counting).
 */
export function chargedLapsed(lapsedNanos: number, forgivenNanos: number): number {
  return lapsedNanos - Math.min(Math.max(0, lapsedNanos), Math.max(0, forgivenNanos));
}

/** The counter's figures for the periods of `nowMs`: committed, settled, lapsed (charged), live holders. */
export function counterFigures(
  r: CounterReading,
  nowMs: number,
): {
  committed: Record<BudgetPeriod, number>;
  settled: Record<BudgetPeriod, number>;
  /** Lapsed slices as charged: {@link chargedLapsed} of the two below. */
  lapsed: Record<BudgetPeriod, number>;
  /** Lapsed slices, and the part of them a correction forgave. */
  lapsedRaw: Record<BudgetPeriod, number>;
  forgiven: Record<BudgetPeriod, number>;
  liveHolders: number;
  /** In-flight reservations of live holders, as last reported, and their count. */
  reservedNanos: number;
  reservations: number;
  /** Earliest end of a live bucket (ms), null when none. */
  nextLapseMs: number | null;
} {
  const { day, month } = periodsAt(nowMs);
  const ids: Record<BudgetPeriod, string> = { day, month };
  const lapsed = {
    day: val(r, counterKeys.lapsed('day', day)),
    month: val(r, counterKeys.lapsed('month', month)),
  };
  let liveHolders = 0;
  let reservedNanos = 0;
  let reservations = 0;
  let nextLapseMs: number | null = null;
  for (const [key, v] of Object.entries(r)) {
    const b = parseBucketKey(key);
    if (b === null || typeof v !== 'number') continue;
    if (b.endMs > nowMs) {
      if (b.kind === 'n') liveHolders += Math.max(0, v);
      else if (b.kind === 'r') reservedNanos += Math.max(0, v);
      else if (b.kind === 'q') reservations += Math.max(0, v);
      else if (v > 0 && (nextLapseMs === null || b.endMs < nextLapseMs)) nextLapseMs = b.endMs;
      continue;
    }
    if (b.kind !== 'b') continue;
    if (b.day === day) lapsed.day += v;
    if (b.day.slice(0, 7) === month) lapsed.month += v;
  }
  const committed = {
    day: val(r, counterKeys.committed('day', ids.day)),
    month: val(r, counterKeys.committed('month', ids.month)),
  };
  const settled = {
    day: val(r, counterKeys.settled('day', ids.day)),
    month: val(r, counterKeys.settled('month', ids.month)),
  };
  const forgiven = {
    day: val(r, counterKeys.forgiven('day', ids.day)),
    month: val(r, counterKeys.forgiven('month', ids.month)),
  };
  return {
    committed,
    settled,
    lapsed: {
      day: chargedLapsed(lapsed.day, forgiven.day),
      month: chargedLapsed(lapsed.month, forgiven.month),
    },
    lapsedRaw: lapsed,
    forgiven,
    liveHolders,
    reservedNanos,
    reservations,
    nextLapseMs,
  };
}

function addTo(add: Record<string, number>, key: string, n: number): void {
  if (n === 0) return;
  add[key] = (add[key] ?? 0) + n;
}

/**
 * The delta of a report that returns `held` whole and counts `consumed` in the periods it belonged to (a
 * slice of yesterday reports yesterday's spend: it no longer counts against today).
 */
function reportDelta(
  add: Record<string, number>,
  held: HeldSlice | null,
  consumed: number,
  day: string,
  lapsedReturn?: { readonly reading: CounterReading; readonly nowMs: number },
): void {
  const spentDay = held?.day ?? day;
  // A lapsed slice that comes back consumes the forgiveness of its period first: the correction took
  // back its charge, and its return takes it back again (its spend is now reported). Without this, both
  // would come off, and admission would count less than was spent.
  const lapsed =
    held !== null && lapsedReturn !== undefined && held.bucketEndMs <= lapsedReturn.nowMs ? held : null;
  for (const p of BUDGET_PERIODS) {
    const id = periodId(p, spentDay);
    const used =
      lapsed === null
        ? 0
        : Math.min(Math.max(0, val(lapsedReturn!.reading, counterKeys.forgiven(p, id))), lapsed.sliceNanos);
    addTo(add, counterKeys.committed(p, id), consumed - (held?.sliceNanos ?? 0) + used);
    addTo(add, counterKeys.settled(p, id), consumed);
    addTo(add, counterKeys.forgiven(p, id), -used);
  }
  if (held !== null && held.sliceNanos > 0) {
    addTo(add, counterKeys.bucket(held.day, held.bucketEndMs), -held.sliceNanos);
    addTo(add, counterKeys.bucketHolders(held.day, held.bucketEndMs), -1);
    addTo(add, counterKeys.bucketReserved(held.day, held.bucketEndMs), -(held.reservedNanos ?? 0));
    addTo(add, counterKeys.bucketReservations(held.day, held.bucketEndMs), -(held.reservations ?? 0));
  }
}

/** Nonnegative integer nano-USD from an untrusted number. */
function nanos(n: number | undefined): number {
  return typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.round(n)) : 0;
}

/**
 * Plans a holder's report against a reading of the counter: returns its held slice, adds its spend, and
 * takes a new slice (reservations + need + headroom), or, when the need does not fit, a slice that covers
 * only its reservations. The delta's conditions make it exact against a stale reading: if other holders
 * took the room since, the write fails and the caller re-reads and plans again.
 *
 * Headroom = `min(max(minHeadroom, rate × max(2 s, holders / 100 per s), want), spare / (2 × live holders))`:
 * rate-sized far from the cap (about 100 writes/s per counter), a shrinking fair share near it.
 * `unleased` is the pipeline's figure per period of spend no holder reports (its aggregates' unleased part:
 * telemetry, SDKs without leases, calls admitted while no cap applied): it counts on top of what holders
 * reported, once (issue 18.2: events say whether a lease counted them).
 *
 * @example
 * // $0.30 daily cap, nothing spent, one holder asking for a $0.006 call with no history:
 * // free = 300,000,000; slice = 6,000,000 + min(10,000,000, (300,000,000 − 6,000,000) / 2) = 16,000,000
 */
export function planLease(
  reading: CounterReading,
  req: LeaseRequest,
  caps: CapsNanos,
  nowMs: number,
  policy: LeasePolicy = DEFAULT_LEASE_POLICY,
  unleased: Partial<Record<BudgetPeriod, number>> = {},
): { delta: CounterDelta; grant: LeaseGrant } {
  const p = periodsAt(nowMs);
  const held = req.held ?? null;
  const consumed = nanos(req.consumedNanos);
  const add: Record<string, number> = {};
  reportDelta(add, held, consumed, p.day, { reading, nowMs });
  const capped = caps.day !== null || caps.month !== null;
  const ttlEnd = nowMs + policy.ttlMs;
  const periodEnd = p.dayEndMs + rolloverSpreadMs(req.holderId);
  const expiresAtMs = Math.min(ttlEnd, periodEnd);
  const endsWithPeriod = periodEnd <= ttlEnd;
  if (!capped) {
    const uncappedEnd = nowMs + policy.uncappedTtlMs;
    return {
      delta: { add, atMost: {} },
      grant: {
        capped: false,
        sliceNanos: 0,
        exhausted: false,
        settledLeavesNoRoom: false,
        expiresAtMs: Math.min(uncappedEnd, periodEnd),
        endsWithPeriod: periodEnd <= uncappedEnd,
        retryAtMs: null,
        refusedBy: null,
        roomNanos: null,
        freeNanos: null,
        held: null,
      },
    };
  }

  const f = counterFigures(reading, nowMs);
  const ids: Record<BudgetPeriod, string> = { day: p.day, month: p.month };
  // This holder's own bucket no longer counts as live or lapsed once it is returned.
  const ownLive = held !== null && held.bucketEndMs > nowMs ? 1 : 0;
  const ownLapsed = (per: BudgetPeriod) =>
    held !== null && held.bucketEndMs <= nowMs && periodId(per, held.day) === ids[per] ? held.sliceNanos : 0;
  let free = Number.POSITIVE_INFINITY;
  let room = Number.POSITIVE_INFINITY;
  let tightest: BudgetPeriod = 'day';
  let tightestRoom: BudgetPeriod = 'day';
  const extra: Record<BudgetPeriod, number> = { day: 0, month: 0 };
  for (const per of BUDGET_PERIODS) {
    const cap = caps[per];
    if (cap === null) continue;
    const own = add[counterKeys.committed(per, ids[per])] ?? 0;
    const settledNow = f.settled[per] + (add[counterKeys.settled(per, ids[per])] ?? 0);
    // Spend no holder reports (telemetry, SDKs without leases) counts too, added: the events a lease
    // counted are not in this figure, so nothing is counted twice and nothing hides behind a max.
    extra[per] = nanos(unleased[per]);
    const fr = cap - extra[per] - (f.committed[per] + own);
    if (fr < free) {
      free = fr;
      tightest = per;
    }
    // Lapsed room as charged once this holder's own lapsed slice is back (it consumes forgiveness first).
    const ownSlice = ownLapsed(per);
    const lapsedAfter = chargedLapsed(
      f.lapsedRaw[per] - ownSlice,
      f.forgiven[per] - Math.min(Math.max(0, f.forgiven[per]), ownSlice),
    );
    const rm = cap - extra[per] - settledNow - lapsedAfter;
    if (rm < room) {
      room = rm;
      tightestRoom = per;
    }
  }
  const reserved = nanos(req.reservedNanos);
  const need = nanos(req.needNanos);
  const spare = free - reserved - need;
  const exhausted = need > 0 ? spare < 0 : free - reserved <= 0;
  let slice: number;
  if (spare < 0) {
    // Reservations in flight are committed money: they stay covered (written without a condition).
    slice = reserved;
  } else {
    const liveHolders = Math.max(0, f.liveHolders - ownLive) + 1;
    const coverSeconds = Math.max(policy.minCoverSeconds, liveHolders / policy.targetWritesPerSecond);
    const byRate = Math.max(
      req.minHeadroomNanos ?? policy.minHeadroomNanos,
      Math.round(nanos(req.rateNanosPerSecond) * coverSeconds),
      nanos(req.wantNanos),
    );
    // Headroom comes out of what is left once every live holder's next call of this size fits: near the
    // cap, slices shrink to the call itself, so holders busy with one call each (Lambda containers)
    // do not park the room other holders' calls need (acceptance walk: room for 4.5 calls, 4 concurrent
    // 8 s calls, 1 admitted). Far from the cap `need × holders` is small beside `spare`.
    const unclaimed = Math.max(0, spare - need * liveHolders);
    slice = reserved + need + Math.min(byRate, Math.floor(unclaimed / (2 * liveHolders)));
  }
  const bucketEndMs = Math.ceil(expiresAtMs / BUCKET_MS) * BUCKET_MS;
  const reservations = reserved > 0 ? Math.max(1, nanos(req.reservations)) : 0;
  const newHeld: HeldSlice | null =
    slice > 0
      ? { sliceNanos: slice, day: p.day, month: p.month, bucketEndMs, reservedNanos: reserved, reservations }
      : null;
  if (newHeld !== null) {
    for (const per of BUDGET_PERIODS) addTo(add, counterKeys.committed(per, ids[per]), slice);
    addTo(add, counterKeys.bucket(p.day, bucketEndMs), slice);
    addTo(add, counterKeys.bucketHolders(p.day, bucketEndMs), 1);
    addTo(add, counterKeys.bucketReserved(p.day, bucketEndMs), reserved);
    addTo(add, counterKeys.bucketReservations(p.day, bucketEndMs), reservations);
  }
  const atMost: Record<string, number> = {};
  if (spare >= 0) {
    // Only a grant needs the cap's condition; returning a slice or covering reservations never grows it.
    for (const per of BUDGET_PERIODS) {
      const cap = caps[per];
      const key = counterKeys.committed(per, ids[per]);
      const grows = add[key] ?? 0;
      if (cap !== null && grows > 0) atMost[key] = cap - extra[per] - grows;
    }
  }
  // A plain renewal (no need) is refused for good once settled spend has used the whole cap.
  const settledLeavesNoRoom = exhausted && (need > 0 ? room < need : room <= 0);
  const retryAtMs = !exhausted
    ? null
    : settledLeavesNoRoom
      ? periodEndMs(tightestRoom, nowMs)
      : // Room held by live slices and calls in flight comes back as calls settle and active holders renew
        // (every minCoverSeconds), at the latest when the first live bucket lapses: retry at the earliest.
        Math.max(
          nowMs + 1_000,
          Math.min(f.nextLapseMs ?? Number.POSITIVE_INFINITY, nowMs + policy.minCoverSeconds * 1000, ttlEnd),
        );
  return {
    delta: { add, atMost },
    grant: {
      capped: true,
      sliceNanos: slice,
      exhausted,
      settledLeavesNoRoom,
      expiresAtMs,
      endsWithPeriod,
      retryAtMs,
      refusedBy: exhausted ? (settledLeavesNoRoom ? tightestRoom : tightest) : null,
      roomNanos: room,
      freeNanos: free,
      held: newHeld,
    },
  };
}

/**
 * True when a report would return a slice of an earlier day: such a renewal is written as two writes, a
 * release (every attribute shrinks) and then a grant (every attribute grows), so that each write, if its
 * answer never comes, has one belief that can only overcount (a single write would shrink the old day and
 * grow the new one, and no single belief is safe for both).
 */
export function crossesDay(held: HeldSlice | null | undefined, nowMs: number): boolean {
  return held !== null && held !== undefined && held.day !== periodsAt(nowMs).day;
}

/**
 * A holder's final report: its slice returns whole and its spend is settled (no condition needed).
 * `reading`: the counter as read, needed only when the slice has lapsed (its return consumes the
 * forgiveness of a correction first; without a reading none is consumed, which only errs towards counting
 * more).
 */
export function planRelease(
  req: { consumedNanos: number; held?: HeldSlice | null },
  nowMs: number,
  reading?: CounterReading,
): CounterDelta {
  const add: Record<string, number> = {};
  reportDelta(
    add,
    req.held ?? null,
    nanos(req.consumedNanos),
    periodsAt(nowMs).day,
    reading === undefined ? undefined : { reading, nowMs },
  );
  return { add, atMost: {} };
}

/** Whether `held` has lapsed at `nowMs` (its return needs a reading: {@link planRelease}). */
export function hasLapsed(held: HeldSlice | null | undefined, nowMs: number): boolean {
  return held !== null && held !== undefined && held.bucketEndMs <= nowMs;
}

/**
 * Applies a delta to a reading the way the store does (the in-memory store, the property test, the bench):
 * every condition `attr ≤ limit` (absent = 0) must hold, then every addition is made.
 * @returns the new reading, or null when a condition failed (nothing changed)
 */
export function applyDelta(reading: CounterReading, delta: CounterDelta): CounterReading | null {
  for (const [key, limit] of Object.entries(delta.atMost)) if (val(reading, key) > limit) return null;
  const next: Record<string, number> = { ...reading };
  for (const [key, n] of Object.entries(delta.add)) next[key] = val(next, key) + n;
  return next;
}

/**
 * Housekeeping for a reading: bucket attributes lapsed for {@link FOLD_AFTER_MS} are folded into their
 * day's and month's lapsed figure, and attributes of periods before yesterday and last month are removed,
 * so the counter stays well under 1 KB (one WCU per write). Null when there is nothing to fold.
 * The store applies it on the condition that every removed attribute still has the value read.
 */
export function planFold(
  reading: CounterReading,
  nowMs: number,
): { add: Record<string, number>; remove: Record<string, number> } | null {
  const add: Record<string, number> = {};
  const remove: Record<string, number> = {};
  const yesterday = periodsAt(nowMs - 86_400_000).day;
  const lastMonth = periodsAt(
    Date.UTC(new Date(nowMs).getUTCFullYear(), new Date(nowMs).getUTCMonth(), 0),
  ).month;
  for (const [key, v] of Object.entries(reading)) {
    if (typeof v !== 'number') continue;
    const b = parseBucketKey(key);
    if (b !== null) {
      if (b.endMs > nowMs - FOLD_AFTER_MS) continue;
      remove[key] = v;
      if (b.kind === 'b' && b.day >= yesterday) {
        addTo(add, counterKeys.lapsed('day', b.day), v);
        addTo(add, counterKeys.lapsed('month', b.day.slice(0, 7)), v);
      }
      continue;
    }
    const m = /^[cslf]([DM])#(.+)$/.exec(key);
    if (m === null) continue;
    const old = m[1] === 'D' ? (m[2] as string) < yesterday : (m[2] as string) < lastMonth;
    if (old) remove[key] = v;
  }
  if (Object.keys(remove).length === 0) return null;
  return { add, remove };
}

/** The admission panel of the current day and month, from a reading. */
export function admissionView(
  reading: CounterReading,
  caps: CapsNanos,
  nowMs: number,
  unleased: Partial<Record<BudgetPeriod, number>> = {},
): Record<BudgetPeriod, AdmissionPeriodView> {
  const f = counterFigures(reading, nowMs);
  const view = (period: BudgetPeriod): AdmissionPeriodView => {
    const settled = f.settled[period] + nanos(unleased[period]) + f.lapsed[period];
    return {
      capNanos: caps[period],
      settledNanos: settled,
      reservedNanos: f.reservedNanos,
      outstandingReservations: f.reservations,
      leasedNanos: Math.max(0, f.committed[period] - f.settled[period] - f.lapsed[period]),
      holders: f.liveHolders,
    };
  };
  return { day: view('day'), month: view('month') };
}
