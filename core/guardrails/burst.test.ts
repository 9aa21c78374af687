import fc from 'fast-check';
import { advanceBurstRing, rpsBurstLayer } from './burst';
import { DEFAULT_POLICY } from './policy';
import { makeEvent, policyWith, runLayer, T0, trippedAt } from './test-support';
import { slidingWindowOracle } from './workload';

/** Requests on one key at the given offsets (s) from T0. */
function requests(offsetsS: number[], keyId = 'abn_key1') {
  return offsetsS.map((s) => makeEvent({ ts: T0 + Math.round(s * 1000), keyId }));
}

const evenly = (n: number, gapS: number): number[] => Array.from({ length: n }, (_, i) => i * gapS);

describe('RPS burst (layer 4)', () => {
  it.each([
    { name: '10 requests in a minute pass', offsets: evenly(10, 1), expected: [] as number[] },
    { name: 'the 11th request within 60 s kills', offsets: evenly(11, 1), expected: [11] },
    { name: 'every further request in the window re-emits', offsets: evenly(13, 1), expected: [11, 12, 13] },
    {
      name: '11 requests spanning exactly 60 s pass (window is < 60 s)',
      offsets: evenly(11, 6),
      expected: [],
    },
    { name: '11 requests spanning 59.999 s kill', offsets: [...evenly(10, 5), 59.999], expected: [11] },
    { name: 'sustained 10/min for 10 minutes passes', offsets: evenly(100, 6), expected: [] },
    {
      name: 'sustained 12/min trips on the 11th',
      offsets: evenly(30, 5),
      expected: evenly(20, 1).map((i) => i + 11),
    },
    {
      name: 'sliding, not fixed buckets: 6 + 5 across a minute boundary',
      offsets: [50, 51, 52, 53, 54, 55, 61, 62, 63, 64, 65],
      expected: [11],
    },
  ])('$name', ({ offsets, expected }) => {
    const { verdicts } = runLayer(rpsBurstLayer, requests(offsets));
    expect(trippedAt(verdicts)).toEqual(expected);
  });

  it('counts per key', () => {
    const a = requests(evenly(6, 1), 'abn_a');
    const b = requests(evenly(6, 1), 'abn_b');
    const { verdicts } = runLayer(rpsBurstLayer, [...a, ...b]);
    expect(trippedAt(verdicts)).toEqual([]);
  });

  it('emits the enforcement fields', () => {
    const { verdicts } = runLayer(rpsBurstLayer, requests(evenly(11, 1)));
    expect(verdicts[10]).toEqual([
      expect.objectContaining({
        triggerType: 'rps_burst',
        observedValue: 11,
        thresholdValue: 10,
        scope: 'key',
        keyId: 'abn_key1',
        mode: 'hard_stop',
      }),
    ]);
  });

  it('keeps at most maxRequests timestamps per key and maxKeys keys', () => {
    const policy = policyWith({ limits: { maxKeys: 4 } });
    const events = Array.from({ length: 200 }, (_, i) =>
      makeEvent({ keyId: `abn_${i % 9}`, ts: T0 + i * 100 }),
    );
    const { state } = runLayer(rpsBurstLayer, events, policy);
    expect(state.keys.ids).toHaveLength(4);
    for (const ring of state.keys.entries) expect(ring.length).toBeLessThanOrEqual(10);
  });

  it('equals a brute-force sliding-window count on random in-order timestamps, for any limit and window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 15_000 }), { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1000, max: 120_000 }),
        (gaps, maxRequests, windowMs) => {
          const times: number[] = [];
          let t = T0;
          for (const g of gaps) times.push((t += g));
          const cfg = { maxRequests, windowMs };
          let ring: readonly number[] = [];
          times.forEach((ts, i) => {
            const r = advanceBurstRing(ring, ts, cfg);
            ring = r.ring;
            // brute force over the whole prefix: requests in the window ending at the newest one
            const inWindow = times.slice(0, i + 1).filter((u) => ts - u < windowMs).length;
            expect(r.inWindow > maxRequests).toBe(inWindow > maxRequests);
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds the first trip where the oracle does, through the whole engine layer', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 12_000 }), { minLength: 1, maxLength: 60 }), (gaps) => {
        const times: number[] = [];
        let t = T0;
        for (const g of gaps) times.push((t += g));
        const { verdicts } = runLayer(
          rpsBurstLayer,
          times.map((ts) => makeEvent({ ts })),
        );
        expect(trippedAt(verdicts)[0]).toBe(slidingWindowOracle(times, 10, 60_000));
      }),
      { numRuns: 200 },
    );
  });

  it('with out-of-order timestamps, decides on the 11 latest known requests and never fires without 11 in a window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 0, max: 8000 })), {
          minLength: 1,
          maxLength: 60,
        }),
        (steps) => {
          let t = T0;
          const times = steps.map(([gap, jitter]) => (t += gap) - jitter);
          const cfg = DEFAULT_POLICY.rpsBurst;
          let ring: readonly number[] = [];
          times.forEach((ts, i) => {
            const r = advanceBurstRing(ring, ts, cfg);
            ring = r.ring;
            const seen = times.slice(0, i + 1).sort((a, b) => a - b);
            const latest = seen.slice(-(cfg.maxRequests + 1));
            const topSpan =
              latest.length > cfg.maxRequests &&
              (latest[latest.length - 1] as number) - (latest[0] as number) < cfg.windowMs;
            expect(r.inWindow > cfg.maxRequests).toBe(topSpan);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
