/**
 * The lease state machine under random interleavings: many holders reserving, settling, renewing (with
 * the store write landing later than the report was taken), crashing, clocks advancing past expiries and
 * day boundaries, and the pipeline recording settled calls (its aggregates, observed by writers) at its own
 * pace. The claims of docs/admission.md:
 * - spend admitted in a day never exceeds the cap plus the stated bound: what calls cost above their
 *   worst case, plus what crashed holders held (in-flight reservations and unreported spend);
 * - with neither, spend never exceeds the cap at all;
 * - the spend admission counts never exceeds what was actually spent (nothing is counted twice);
 * - nothing is stranded: once every slice has expired, all of `cap − settled` is free again.
 */
import fc from 'fast-check';
import { LeaseHolderState, type PendingReport } from './lease-holder';
import {
  emptyLeaseState,
  grantLease,
  observeRecorded,
  periodsAt,
  releaseLease,
  settledSpend,
  type CapsNanos,
  type LeaseState,
} from './lease-state';

const TTL = 30_000;
const GUARD = 2_000;

type Op =
  | { kind: 'call'; holder: number; worst: number; fraction: number; over: number }
  | { kind: 'settle'; pick: number }
  | { kind: 'begin'; holder: number }
  | { kind: 'finish'; holder: number }
  | { kind: 'crash'; holder: number }
  | { kind: 'release'; holder: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'record' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      holder: fc.nat(7),
      worst: fc.integer({ min: 1, max: 40_000_000 }),
      // Mostly calls that cost their whole worst case: the hardest case for the cap.
      fraction: fc.oneof(
        { weight: 3, arbitrary: fc.constant(1) },
        { weight: 1, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }) },
      ),
      over: fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(5_000_000) }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('begin' as const), holder: fc.nat(7) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('finish' as const), holder: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), holder: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('release' as const), holder: fc.nat(7) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 45_000 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('record' as const) }) },
);

interface InFlight {
  holder: number;
  generation: number;
  reserved: number;
  actual: number;
  day: string;
  month: string;
}

interface World {
  now: number;
  store: LeaseState;
  holders: LeaseHolderState[];
  generations: number[];
  pending: ({ report: PendingReport; covers: number } | undefined)[];
  /** Per holder, the calls settled and not yet reported (a report covers the first `covers` of them). */
  unreported: { day: string; actual: number }[][];
  inflight: InFlight[];
  billed: Map<string, number>;
  /** Settled calls the pipeline has not recorded yet, and what it has recorded per period. */
  unrecorded: { day: string; month: string; actual: number }[];
  recorded: Map<string, number>;
  /**
   * Spend of calls admitted in one day whose report lands in the next: once the holder's slice of the old
   * day has lapsed, the item counts the report in the day it lands in (it no longer knows the old slice), a
   * conservative overcount of that day.
   */
  straddled: number;
  /** Spend above worst cases plus what crashes took with them: the stated bound. */
  bound: number;
  /**
   * Part of the bound: what a holder had in flight or unreported when its slice lapsed while its report was
   * still on the way (a store write slower than the slice's last 5 s: the relay's store timeout is 1 s).
   */
  stalled: number;
  lapsed: Set<string>;
  maxSkew: number[];
}

function bill(w: World, key: string, n: number): void {
  w.billed.set(key, (w.billed.get(key) ?? 0) + n);
}

/** One store operation, as the conditional write would apply it at the store's clock. */
function renew(
  w: World,
  h: number,
  report: PendingReport,
  caps: CapsNanos,
  covers = (w.unreported[h] as unknown[]).length,
): ReturnType<typeof grantLease>['grant'] {
  const { state, grant } = grantLease(observed(w), report.request, caps, w.now);
  w.store = state;
  (w.holders[h] as LeaseHolderState).applyGrant(report, grant, w.now);
  landed(w, h, covers);
  return grant;
}

function landed(w: World, h: number, covers: number): void {
  for (const c of (w.unreported[h] as { day: string; actual: number }[]).splice(0, covers)) {
    if (c.day !== w.store.day) w.straddled += c.actual;
  }
}

/** The store's item with the pipeline's aggregates observed, as a writer sees it before writing. */
function observed(w: World): LeaseState {
  const p = periodsAt(w.now);
  return observeRecorded(w.store, { day: w.recorded.get(p.day), month: w.recorded.get(p.month) }, w.now);
}

function release(w: World, h: number): void {
  const holder = w.holders[h] as LeaseHolderState;
  const report = holder.report(0, w.now);
  w.store = releaseLease(observed(w), holder.holderId, report.request.consumedNanos, w.now);
  holder.applyRelease(report);
  landed(w, h, (w.unreported[h] as unknown[]).length);
}

/**
 * The relay's lease timer through an advance of the clock: each holder acts when
 * {@link LeaseHolderState.nextLeaseActionAtMs} says (by its own clock), in time order; the world's clock
 * moves to each action, then to `until`.
 */
function advanceTo(w: World, caps: CapsNanos, until: number): void {
  for (let h = 0; h < w.holders.length; h++) {
    const holder = w.holders[h] as LeaseHolderState;
    const key = `${holder.holderId}@${holder.expiresAtMs}`;
    const owed = holder.reservedNanos + holder.unreportedNanos;
    if (
      holder.renewing &&
      holder.capped === true &&
      owed > 0 &&
      holder.expiresAtMs <= until &&
      !w.lapsed.has(key)
    ) {
      w.lapsed.add(key);
      w.stalled += owed;
      w.bound += owed;
    }
  }
  for (let step = 0; step < 100_000; step++) {
    let next = Number.POSITIVE_INFINITY;
    let who = -1;
    for (let h = 0; h < w.holders.length; h++) {
      const skew = w.maxSkew[h] as number;
      const at = (w.holders[h] as LeaseHolderState).nextLeaseActionAtMs(w.now + skew);
      if (at !== null && at - skew <= until && at - skew < next) {
        next = at - skew;
        who = h;
      }
    }
    if (who < 0) break;
    w.now = Math.max(w.now, next);
    const holder = w.holders[who] as LeaseHolderState;
    if (holder.reservations > 0) renew(w, who, holder.report(0, w.now + (w.maxSkew[who] as number)), caps);
    else release(w, who);
  }
  w.now = Math.max(w.now, until);
}

function run(ops: readonly Op[], caps: CapsNanos, start: number, skews: number[]): World {
  const w: World = {
    now: start,
    store: emptyLeaseState(start),
    holders: skews.map((_s, i) => new LeaseHolderState(`h${i}-0`, GUARD)),
    generations: skews.map(() => 0),
    pending: skews.map(() => undefined),
    unreported: skews.map(() => []),
    inflight: [],
    billed: new Map(),
    unrecorded: [],
    recorded: new Map(),
    straddled: 0,
    bound: 0,
    stalled: 0,
    lapsed: new Set(),
    maxSkew: skews,
  };
  const clock = (h: number) => w.now + (skews[h] as number);
  for (const op of ops) {
    const h = 'holder' in op ? op.holder % w.holders.length : 0;
    const holder = w.holders[h] as LeaseHolderState;
    switch (op.kind) {
      case 'call': {
        let admitted = holder.tryReserve(op.worst, clock(h));
        if (!admitted && !holder.renewing) {
          const grant = renew(w, h, holder.report(op.worst, clock(h)), caps);
          admitted = !grant.exhausted && holder.tryReserve(op.worst, clock(h));
        }
        if (admitted && holder.capped !== false) {
          const actual = Math.floor(op.worst * op.fraction) + op.over;
          w.bound += op.over;
          const p = periodsAt(w.now);
          w.inflight.push({
            holder: h,
            generation: w.generations[h] as number,
            reserved: op.worst,
            actual,
            day: p.day,
            month: p.month,
          });
        }
        break;
      }
      case 'settle': {
        if (w.inflight.length === 0) break;
        const i = op.pick % w.inflight.length;
        const call = w.inflight[i] as InFlight;
        w.inflight.splice(i, 1);
        bill(w, call.day, call.actual);
        bill(w, call.month, call.actual);
        w.unrecorded.push({ day: call.day, month: call.month, actual: call.actual });
        if (w.generations[call.holder] === call.generation) {
          (w.unreported[call.holder] as { day: string; actual: number }[]).push({
            day: call.day,
            actual: call.actual,
          });
          (w.holders[call.holder] as LeaseHolderState).settle(call.reserved, call.actual, clock(call.holder));
        }
        break;
      }
      case 'begin':
        if (!holder.renewing) {
          w.pending[h] = {
            report: holder.report(0, clock(h)),
            covers: (w.unreported[h] as unknown[]).length,
          };
        }
        break;
      case 'finish': {
        const pending = w.pending[h];
        if (pending !== undefined) {
          w.pending[h] = undefined;
          renew(w, h, pending.report, caps, pending.covers);
        }
        break;
      }
      case 'crash': {
        // The process dies: its calls in flight are billed by the provider but never reported, and so is the
        // spend it had settled and not yet reported. Its slice stays in the item until it expires.
        w.bound += holder.unreportedNanos;
        for (const call of w.inflight)
          if (call.holder === h && call.generation === w.generations[h]) w.bound += call.reserved;
        w.generations[h] = (w.generations[h] as number) + 1;
        w.holders[h] = new LeaseHolderState(`h${h}-${w.generations[h]}`, GUARD);
        w.pending[h] = undefined;
        w.unreported[h] = [];
        break;
      }
      case 'release': {
        if (holder.renewing || holder.reservations > 0) break;
        release(w, h);
        break;
      }
      case 'record':
        for (const c of w.unrecorded.splice(0)) {
          w.recorded.set(c.day, (w.recorded.get(c.day) ?? 0) + c.actual);
          w.recorded.set(c.month, (w.recorded.get(c.month) ?? 0) + c.actual);
        }
        break;
      case 'advance':
        advanceTo(w, caps, w.now + op.ms);
        break;
    }
    for (const [period, spent] of w.billed) {
      const cap = period.length === 10 ? caps.day : caps.month;
      if (cap !== null && spent > cap + w.bound) {
        throw new Error(`${period}: billed ${spent} > cap ${cap} + bound ${w.bound}`);
      }
    }
    const counted = settledSpend(w.store);
    for (const [period, n] of [
      [w.store.day, counted.day],
      [w.store.month, counted.month],
    ] as const) {
      if (n > (w.billed.get(period) ?? 0) + w.straddled) {
        throw new Error(
          `${period}: admission counts ${n} > spent ${w.billed.get(period) ?? 0} + ${w.straddled}`,
        );
      }
    }
  }
  return w;
}

const capsArb: fc.Arbitrary<CapsNanos> = fc.record({
  day: fc.option(fc.integer({ min: 1_000_000, max: 200_000_000 }), { nil: null, freq: 5 }),
  month: fc.option(fc.integer({ min: 1_000_000, max: 900_000_000 }), { nil: null, freq: 3 }),
});
// Starts anywhere, often minutes before a day (and month) boundary so rollovers happen.
const startArb = fc.oneof(
  fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
  fc.integer({ min: Date.UTC(2026, 10, 30, 23, 58), max: Date.UTC(2026, 11, 1, 0, 0) }),
);
const skewsArb = fc.array(fc.integer({ min: -GUARD + 1, max: GUARD - 1 }), { minLength: 1, maxLength: 8 });

describe('budget leases (property)', () => {
  it('never lets spend pass a cap by more than the stated bound', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 400 }),
        capsArb,
        startArb,
        skewsArb,
        (ops, caps, start, skews) => {
          run(ops, caps, start, skews);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('holds the cap exactly when calls stay within their worst case, nobody crashes and no report stalls', () => {
    const honest = fc.array(
      opArb.filter((o) => o.kind !== 'crash').map((o) => (o.kind === 'call' ? { ...o, over: 0 } : o)),
      { maxLength: 400 },
    );
    fc.assert(
      fc.property(honest, capsArb, startArb, skewsArb, (ops, caps, start, skews) => {
        const w = run(ops, caps, start, skews);
        expect(w.bound).toBe(w.stalled);
      }),
      { numRuns: 300 },
    );
  });

  it('strands nothing: after every slice expired, cap − settled is free again', () => {
    fc.assert(
      fc.property(
        fc.array(opArb, { maxLength: 200 }),
        fc.integer({ min: 10_000_000, max: 400_000_000 }),
        fc.integer({ min: Date.UTC(2026, 5, 1), max: Date.UTC(2026, 5, 1, 20) }),
        skewsArb,
        (ops, cap, start, skews) => {
          const caps = { day: cap, month: null };
          const w = run(ops, caps, start, skews);
          // Every holder vanishes; a new one arrives after the longest lease has run out (same day).
          const later = w.now + TTL + 1;
          const { grant, state } = grantLease(
            w.store,
            {
              holderId: 'late',
              consumedNanos: 0,
              reservedNanos: 0,
              reservations: 0,
              needNanos: 0,
              rateNanosPerSecond: 0,
            },
            caps,
            later,
          );
          const settled = periodsAt(later).day === w.store.day ? settledSpend(state).day : 0;
          expect(grant.freeNanos).toBe(cap - settled);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('grantLease', () => {
  const t = Date.UTC(2026, 10, 23, 12);
  const req = {
    holderId: 'a',
    consumedNanos: 0,
    reservedNanos: 0,
    reservations: 0,
    needNanos: 6_000_000,
    rateNanosPerSecond: 0,
  };

  it('grants need + headroom capped at half of what is left for a single holder', () => {
    const { grant } = grantLease(emptyLeaseState(t), req, { day: 300_000_000, month: null }, t);
    // 6,000,000 + min(10,000,000 default headroom, (300,000,000 − 6,000,000) / 2)
    expect(grant).toMatchObject({
      capped: true,
      exhausted: false,
      sliceNanos: 16_000_000,
      expiresAtMs: t + TTL,
    });
  });

  it('shrinks the slice to the call itself near the cap', () => {
    const state = emptyLeaseState(t, { day: 293_000_000 });
    const { grant } = grantLease(state, req, { day: 300_000_000, month: null }, t);
    // spare = 7,000,000 − 6,000,000 = 1,000,000; fair share 500,000
    expect(grant.sliceNanos).toBe(6_500_000);
  });

  it('refuses at once when settled spend leaves no room, waits when only other slices do', () => {
    const caps = { day: 300_000_000, month: null };
    const full = grantLease(emptyLeaseState(t, { day: 296_000_000 }), req, caps, t).grant;
    expect(full).toMatchObject({
      exhausted: true,
      settledLeavesNoRoom: true,
      retryAtMs: Date.UTC(2026, 10, 24),
    });
    const other = grantLease(
      emptyLeaseState(t, { day: 250_000_000 }),
      { ...req, holderId: 'b', needNanos: 48_000_000 },
      caps,
      t,
    );
    const busy = grantLease(other.state, req, caps, t).grant;
    expect(busy).toMatchObject({ exhausted: true, settledLeavesNoRoom: false });
  });

  it('never lets a slice outlive its day', () => {
    const late = Date.UTC(2026, 10, 23, 23, 59, 50);
    const { grant } = grantLease(emptyLeaseState(late), req, { day: 300_000_000, month: null }, late);
    expect(grant.expiresAtMs).toBe(Date.UTC(2026, 10, 24));
  });

  it('answers uncapped without a slice when no block cap applies', () => {
    const { grant } = grantLease(emptyLeaseState(t), req, { day: null, month: null }, t);
    expect(grant).toMatchObject({ capped: false, sliceNanos: 0, exhausted: false });
  });
});
