/**
 * Calibration of the forecast against the known process of `synthetic.ts`: for each trial, a
 * random organization's history up to a random `now`, a forecast, and the spend the same
 * process then realizes over each horizon. A calibrated forecast has the realized spend at or
 * below its P95 in ~95 % of trials and at or below its P50 in ~50 %.
 */
import { dayStart, monthStart, MS_PER_DAY, MS_PER_HOUR, nextMonthStart } from './calendar';
import { SeededRandom } from './random';
import { simulate } from './simulate';
import { summarizeHistory } from './summarize';
import { dayMultipliers, generateCalls, randomProcess } from './synthetic';
import { HORIZON_IDS } from './types';
import type { HorizonId } from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { max, min } = Math;

export interface CalibrationOptions {
  trials: number;
  iterations: number;
  seed: number;
}

export interface HorizonCoverage {
  horizon: HorizonId;
  /** Share of trials whose realized spend was ≤ the forecast's P50, P95, P99. */
  p50: number;
  p95: number;
  p99: number;
}

/**
 * Runs the calibration. `now` is drawn in 2026 at a time of day before 21:00 UTC, so that
 * rest-of-day always spans a few hours (with minutes left, spend is mostly exactly 0 and
 * coverage is about ties, not calibration).
 */
export function calibrate(options: CalibrationOptions): HorizonCoverage[] {
  const below = new Map<HorizonId, { p50: number; p95: number; p99: number }>(
    HORIZON_IDS.map((h) => [h, { p50: 0, p95: 0, p99: 0 }]),
  );
  for (let t = 0; t < options.trials; t++) {
    const rng = new SeededRandom(options.seed * 1_000_003 + t);
    const process = randomProcess(rng);
    const now = Date.UTC(2026, 0, 1) + rng.int(330) * MS_PER_DAY + rng.int(21 * MS_PER_HOUR);
    const multiplier = dayMultipliers(rng, process.dayDispersion);
    const history = generateCalls(process, rng, min(now - 28 * MS_PER_DAY, monthStart(now)), now, multiplier);
    const ends: Record<HorizonId, number> = {
      restOfDay: dayStart(now) + MS_PER_DAY,
      restOfMonth: nextMonthStart(now),
      next7Days: now + 7 * MS_PER_DAY,
      next30Days: now + 30 * MS_PER_DAY,
    };
    const future = generateCalls(process, rng, now, max(...Object.values(ends)), multiplier);
    const forecast = simulate(summarizeHistory({ events: history }, { end: now }), {
      now,
      seed: t,
      iterations: options.iterations,
    });
    for (const h of forecast.horizons) {
      let realized = 0;
      for (const call of future) if (call.ts < ends[h.horizon]) realized += call.costNanos;
      const b = below.get(h.horizon) as { p50: number; p95: number; p99: number };
      if (realized <= h.p50Nanos) b.p50++;
      if (realized <= h.p95Nanos) b.p95++;
      if (realized <= h.p99Nanos) b.p99++;
    }
  }
  return HORIZON_IDS.map((horizon) => {
    const b = below.get(horizon) as { p50: number; p95: number; p99: number };
    return { horizon, p50: b.p50 / options.trials, p95: b.p95 / options.trials, p99: b.p99 / options.trials };
  });
}
