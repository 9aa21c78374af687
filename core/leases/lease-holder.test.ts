/**
 * When an idle holder hands its slice back before a freeze (LeaseHolderState.shouldReturnWhenIdle,
 * docs/admission.md "Idle holders"): the bound it claims is that a frozen holder that keeps its slice parks
 * at most 1 / fleetSize of what was free when it got it, and that a holder with calls in flight never
 * releases. Grants come from the real planner against counters with other holders' slices and spend.
 */
import fc from 'fast-check';
import { LeaseHolderState } from './lease-holder';
import { counterKeys, periodsAt, planLease, type CounterReading } from './lease-state';

const NOW = Date.parse('2026-11-23T12:00:00.000Z');
const FLEET = 100;

/** A counter where other holders have committed `othersNanos` (of it `spentNanos` settled) in `live` slices. */
function counter(othersNanos: number, spentNanos: number, live: number): CounterReading {
  const { day, month } = periodsAt(NOW);
  const bucket = NOW + 20_000;
  return {
    [counterKeys.committed('day', day)]: othersNanos + spentNanos,
    [counterKeys.committed('month', month)]: othersNanos + spentNanos,
    [counterKeys.settled('day', day)]: spentNanos,
    [counterKeys.settled('month', month)]: spentNanos,
    [counterKeys.bucket(day, bucket)]: othersNanos,
    [counterKeys.bucketHolders(day, bucket)]: live,
  };
}

const caseArb = fc
  .record({
    cap: fc.integer({ min: 1_000_000, max: 2_000_000_000 }),
    usedShare: fc.double({ min: 0, max: 1, noNaN: true }),
    spentShare: fc.double({ min: 0, max: 1, noNaN: true }),
    live: fc.nat(120),
    need: fc.integer({ min: 1, max: 50_000_000 }),
    rate: fc.nat(20_000_000),
    actualShare: fc.double({ min: 0, max: 1, noNaN: true }),
    inFlight: fc.boolean(),
  })
  .map((c) => {
    const used = Math.floor(c.cap * c.usedShare);
    return { ...c, others: used - Math.floor(used * c.spentShare), spent: Math.floor(used * c.spentShare) };
  });

describe('LeaseHolderState.shouldReturnWhenIdle', () => {
  it('keeps a slice only when it is at most 1 / fleet of what was free, never with calls in flight', () => {
    let kept = 0;
    let returned = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const h = new LeaseHolderState('relay-x');
        const sent = h.report(c.need, NOW);
        sent.request = { ...sent.request, rateNanosPerSecond: c.rate };
        const { grant } = planLease(
          counter(c.others, c.spent, c.live),
          sent.request,
          { day: c.cap, month: null },
          NOW,
        );
        h.applyGrant(sent, grant, NOW);
        const admitted = h.tryReserve(c.need, NOW);
        if (admitted && c.inFlight) {
          expect(h.shouldReturnWhenIdle(FLEET)).toBe(false);
          return;
        }
        if (admitted) h.settle(c.need, Math.floor(c.need * c.actualShare), NOW);
        const holds = h.held !== null || h.unreportedNanos > 0;
        if (!holds) {
          expect(h.shouldReturnWhenIdle(FLEET)).toBe(false); // nothing to return: no write
          return;
        }
        if (h.shouldReturnWhenIdle(FLEET)) {
          returned++;
          return;
        }
        kept++;
        expect(grant.exhausted).toBe(false);
        expect(h.sliceNanos * FLEET).toBeLessThanOrEqual(grant.freeNanos ?? -1);
      }),
      { numRuns: 2_000 },
    );
    // Both sides of the boundary were reached.
    expect(kept).toBeGreaterThan(0);
    expect(returned).toBeGreaterThan(0);
  });
});

describe('LeaseHolderState.settledLeavesNoRoom', () => {
  it("does not refuse for good after midnight on the day before's answer", () => {
    const beforeMidnight = Date.parse('2026-11-23T23:59:59.800Z');
    const h = new LeaseHolderState('relay-x');
    const sent = h.report(6_000_000, beforeMidnight);
    // The day's cap is spent: settled leaves 1,000,000 of room, less than the call.
    const { day, month } = periodsAt(beforeMidnight);
    const reading: CounterReading = {
      [counterKeys.committed('day', day)]: 299_000_000,
      [counterKeys.settled('day', day)]: 299_000_000,
      [counterKeys.committed('month', month)]: 299_000_000,
      [counterKeys.settled('month', month)]: 299_000_000,
    };
    const { grant } = planLease(reading, sent.request, { day: 300_000_000, month: null }, beforeMidnight);
    h.applyGrant(sent, grant, beforeMidnight);
    expect(h.settledLeavesNoRoom(6_000_000, beforeMidnight + 100, 500)).toBe(true);
    expect(h.settledLeavesNoRoom(6_000_000, beforeMidnight + 300, 500)).toBe(false); // 00:00:00.100
  });
});
