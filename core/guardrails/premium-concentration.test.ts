import { premiumConcentrationLayer } from './premium-concentration';
import { makeEvent, policyWith, runLayer, T0, trippedAt } from './test-support';

const USD = 1_000_000_000;

/** Calls: [minutes after T0, dollars, premium?]. */
function spend(calls: [number, number, boolean][]) {
  return calls.map(([min, usd, premium]) =>
    makeEvent({ ts: T0 + min * 60_000, costNanos: Math.round(usd * USD), premium }),
  );
}

describe('premium concentration (layer 5)', () => {
  it.each([
    {
      name: 'one expensive call on a new organization (below the $5 floor)',
      calls: [[0, 4.9, true]],
      expected: [],
    },
    {
      name: 'premium-only use below the floor all hour',
      calls: [
        [0, 1, true],
        [10, 1, true],
        [20, 1, true],
        [30, 1, true],
      ],
      expected: [],
    },
    {
      name: '100 % premium once the window reaches $5',
      calls: [
        [0, 2, true],
        [1, 2, true],
        [2, 1, true],
      ],
      expected: [3],
    },
    {
      name: 'exactly 90 % is not more than 90 %',
      calls: [
        [0, 1, false],
        [1, 9, true],
      ],
      expected: [],
    },
    {
      name: 'just over 90 % trips',
      calls: [
        [0, 0.99, false],
        [1, 9, true],
      ],
      expected: [2],
    },
    {
      name: 'mixed spend (50 % premium) passes',
      calls: [
        [0, 5, false],
        [1, 5, true],
      ],
      expected: [],
    },
    {
      name: 'cheap spend ageing out of the 1-h window lets the share rise',
      calls: [
        [0, 5, false],
        [30, 20, true],
        [59, 0.01, false],
        [61, 0.01, false],
      ],
      expected: [4],
    },
    {
      name: 'premium spend older than the window no longer counts',
      calls: [
        [0, 10, true],
        [70, 1, false],
      ],
      expected: [1],
    },
  ] as { name: string; calls: [number, number, boolean][]; expected: number[] }[])(
    '$name',
    ({ calls, expected }) => {
      const { verdicts } = runLayer(premiumConcentrationLayer, spend(calls));
      expect(trippedAt(verdicts)).toEqual(expected);
    },
  );

  it('emits the share and the threshold', () => {
    const { verdicts } = runLayer(
      premiumConcentrationLayer,
      spend([
        [0, 0.5, false],
        [1, 9.5, true],
      ]),
    );
    expect(verdicts[1]).toEqual([
      expect.objectContaining({
        triggerType: 'premium_concentration',
        observedValue: 0.95,
        thresholdValue: 0.9,
        scope: 'organization',
      }),
    ]);
  });

  it('keeps at most windowMs / bucketMs buckets', () => {
    const calls: [number, number, boolean][] = Array.from({ length: 500 }, (_, i) => [
      i * 0.5,
      0.01,
      i % 2 === 0,
    ]);
    const { state } = runLayer(premiumConcentrationLayer, spend(calls));
    expect(state.buckets.length).toBeLessThanOrEqual(60);
    expect(state.buckets.length).toBe(state.totalNanos.length);
  });

  it('adds a late event to its own minute when it is still in the window', () => {
    const { state } = runLayer(
      premiumConcentrationLayer,
      spend([
        [10, 1, false],
        [5, 2, true],
        [12, 1, false],
      ]),
    );
    expect(state.buckets.map((b) => b - Math.floor(T0 / 60_000))).toEqual([5, 10, 12]);
    expect(state.premiumNanos).toEqual([2 * USD, 0, 0]);
  });

  it('honours floor and share from policy', () => {
    const policy = policyWith({ premiumConcentration: { minSpendNanos: 0, maxShare: 0.5 } });
    const { verdicts } = runLayer(
      premiumConcentrationLayer,
      spend([
        [0, 0.01, false],
        [1, 0.02, true],
      ]),
      policy,
    );
    expect(trippedAt(verdicts)).toEqual([2]);
  });
});
