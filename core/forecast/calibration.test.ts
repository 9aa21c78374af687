import { calibrate } from './calibration';

describe('forecast calibration on a known process', () => {
  // 400 random organizations (2–40 calls/h, weekly and daily cycles, busy and quiet days, a
  // model mix with heavy-tailed costs), forecast from their history, compared with what the
  // process then spends.
  const coverage = calibrate({ trials: 400, iterations: 2000, seed: 1 });

  it.each(['restOfDay', 'restOfMonth', 'next7Days', 'next30Days'])(
    'realized spend is ≤ P95 in 95 % ± 3 % and ≤ P50 in 50 % ± 5 % of trials (%s)',
    (horizon) => {
      const c = coverage.find((x) => x.horizon === horizon);
      expect(c?.p95).toBeGreaterThanOrEqual(0.92);
      expect(c?.p95).toBeLessThanOrEqual(0.98);
      expect(c?.p50).toBeGreaterThanOrEqual(0.45);
      expect(c?.p50).toBeLessThanOrEqual(0.55);
    },
  );
});
