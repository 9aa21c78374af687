/**
 * An admin's correction of lapsed room (forgiveness, `POST /v1/budget/settled/correct`) against holders
 * that come back: random sequences of grants, lapses, corrections and returns on one counter. Claims:
 * - admission never counts less than the spend holders reported, nor takes back more than was forgiven;
 * - once every holder whose slice had lapsed when room was forgiven has come back, nothing is forgiven
 *   any more: a slice that lapses later is charged whole (before, a return freed its slice a second time).
 */
import fc from 'fast-check';
import {
  applyDelta,
  counterFigures,
  counterKeys,
  periodsAt,
  planLease,
  planRelease,
  type CapsNanos,
  type CounterReading,
  type HeldSlice,
} from './lease-state';

const T0 = Date.parse('2026-11-26T08:00:00.000Z');
const CAPS: CapsNanos = { day: 1e15, month: null };

type Op =
  | { kind: 'take'; holder: number; need: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'forgive'; fraction: number }
  | { kind: 'return'; holder: number; spentFraction: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('take' as const),
      holder: fc.nat(5),
      need: fc.integer({ min: 1, max: 1e9 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 60_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('forgive' as const),
      fraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('return' as const),
      holder: fc.nat(5),
      spentFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    }),
  },
);

function apply(
  counter: CounterReading,
  delta: { add: Record<string, number>; atMost: Record<string, number> },
) {
  const next = applyDelta(counter, delta);
  if (next === null) throw new Error('a condition failed far below the cap');
  return next;
}

describe('forgiven lapsed room and returning holders', () => {
  it('never counts below reported spend, and ends once its holders are back', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 10, maxLength: 120 }), (ops) => {
        let now = T0;
        let counter: CounterReading = {};
        const held: Array<HeldSlice | null> = Array.from({ length: 6 }, () => null);
        let reported = 0;
        let forgivenTotal = 0;
        /** Holders whose slice had lapsed when room was forgiven, not back yet. */
        const owing = new Set<number>();
        let forgave = false;
        for (const op of ops) {
          if (op.kind === 'take' && held[op.holder] === null) {
            const { delta, grant } = planLease(
              counter,
              {
                holderId: `h${op.holder}`,
                consumedNanos: 0,
                reservedNanos: 0,
                reservations: 0,
                needNanos: op.need,
                rateNanosPerSecond: 0,
              },
              CAPS,
              now,
            );
            counter = apply(counter, delta);
            held[op.holder] = grant.held;
          } else if (op.kind === 'advance') {
            now += op.ms;
          } else if (op.kind === 'forgive') {
            const f = counterFigures(counter, now);
            const x = Math.floor(Math.max(0, f.lapsed.day) * op.fraction);
            if (x > 0) {
              const { day, month } = periodsAt(now);
              counter = apply(counter, {
                add: {
                  [counterKeys.committed('day', day)]: -x,
                  [counterKeys.committed('month', month)]: -x,
                  [counterKeys.forgiven('day', day)]: x,
                  [counterKeys.forgiven('month', month)]: x,
                },
                atMost: {},
              });
              forgivenTotal += x;
              forgave = true;
              held.forEach((h, i) => h !== null && h.bucketEndMs <= now && owing.add(i));
            }
          } else if (op.kind === 'return') {
            const h = held[op.holder];
            if (h === null || h === undefined) continue;
            const spent = Math.floor(h.sliceNanos * op.spentFraction);
            counter = apply(counter, planRelease({ consumedNanos: spent, held: h }, now, counter));
            reported += spent;
            held[op.holder] = null;
            owing.delete(op.holder);
          }
          const f = counterFigures(counter, now);
          const counted = f.settled.day + f.lapsed.day;
          expect(counted).toBeGreaterThanOrEqual(reported);
          expect(counted).toBeGreaterThanOrEqual(reported + f.lapsedRaw.day - forgivenTotal);
          // Committed is settled spend plus every slice not returned (live or lapsed), less what is forgiven.
          const outstanding = held.reduce((n, h) => n + (h?.sliceNanos ?? 0), 0);
          expect(f.committed.day + f.forgiven.day).toBe(f.settled.day + outstanding);
          if (forgave && owing.size === 0) {
            // Nothing is forgiven any more: every lapsed slice is charged whole.
            expect(counted).toBe(reported + f.lapsedRaw.day);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
