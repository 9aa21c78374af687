/**
 * Reduces an organization's history (calls, or hourly aggregates) to a `HistorySummary`: an
 * hour-of-week call-rate profile, the per-call cost distribution, the day-to-day dispersion of
 * spend and the uncertainty of its level. One pass over the input; the summary's size and the
 * simulation's cost do not depend on how long or how busy the history is.
 *
 * Model (what `simulate` draws from):
 * - calls in an hour h of day d: Poisson(L · g_d · μ[hour-of-week(h)]);
 * - g_d: a day multiplier, Gamma with mean 1 and variance φ (`dayDispersion`), independent per
 *   UTC day: busy days and quiet days, whatever their cause (volume or model mix);
 * - L: the uncertainty of the estimated level, Gamma with mean 1 and variance ρ
 *   (`levelRelativeVariance`), drawn once per simulated future;
 * - each call's cost: drawn from the empirical cost distribution (the model mix is in it).
 *
 * Estimation:
 * - μ: calls per hour of the week over the exposure (hours actually covered), shrunk toward a
 *   separable day-of-week × hour-of-day profile with a pseudo-count of one hour, so a bucket
 *   seen only a few times borrows strength from its row and column;
 * - φ: for each full UTC day, r_d = spend_d / expected spend_d; the profile was fitted on these
 *   days, which shrinks the spread of r by (n − 1)/n (n = days behind each value of the
 *   profile), so the sample variance is scaled back by n/(n − 1); Var(r) = φ + (1 + v/m²)/Λ_d
 *   under the model (m, v: mean and variance of one call's cost; Λ_d: expected calls), so
 *   φ̂ = max(0, s² − mean((1 + v/m²)/Λ_d)). For a quiet organization (a few calls a day) s² is
 *   mostly noise and φ̂ is unreliable, so φ̂ is averaged with a prior of 0.25 (a daily
 *   coefficient of variation of 50 %) by precision: weight Var(s²) ≈ 2s⁴/(days − 1) against a
 *   prior variance of 0.04. With fewer than 3 full days φ is the prior;
 * - ρ = max(s², mean((1 + v/m²)/Λ_d)) / days of exposure: the variance of a mean of daily ratios;
 * - both are estimates from a few weeks of days: `simulate` draws s² per iteration from its
 *   sampling distribution (s²·k/χ²_k, k = full days − 1) and derives φ and ρ from the draw, so
 *   the forecast's tails include the uncertainty of the dispersion itself.
 */
import {
  dayStart,
  hourOfWeek,
  hourStart,
  HOURS_PER_WEEK,
  monthStart,
  MS_PER_DAY,
  MS_PER_HOUR,
} from './calendar';
import { ForecastError } from './errors';
import type {
  CallRecord,
  CostDistribution,
  HistoryInput,
  HistorySummary,
  HourlyAggregate,
  SummarizeOptions,
} from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { ceil, floor, log2, max, min, round } = Math;

const DEFAULT_LOOKBACK_DAYS = 28;
/** Day-to-day dispersion assumed when the history has fewer than 3 full days. */
export const PRIOR_DAY_DISPERSION = 0.25;
/** Variance expressing how sure the prior φ is (standard deviation 0.2). */
const PRIOR_DISPERSION_VARIANCE = 0.04;

/**
 * φ from a day-to-day ratio variance: the part beyond noise, shrunk toward the prior by
 * `shrinkage` (0 = trust the data, 1 = the prior).
 */
export function shrinkDispersion(ratioVariance: number, noiseVariance: number, shrinkage: number): number {
  return (1 - shrinkage) * max(0, ratioVariance - noiseVariance) + shrinkage * PRIOR_DAY_DISPERSION;
}

/** Pseudo-count (hours of exposure) of the shrinkage of hour-of-week rates toward the separable profile. */
const SHRINK_HOURS = 1;
/** Cost histogram bins per octave (bin width factor √2). */
const BINS_PER_OCTAVE = 2;

class CostAccumulator {
  calls = 0;
  sum = 0;
  sumSquares = 0;
  readonly bins = new Map<number, { calls: number; sum: number }>();

  add(cost: number, calls: number): void {
    this.calls += calls;
    this.sum += cost * calls;
    this.sumSquares += cost * cost * calls;
    const bin = cost >= 1 ? floor(BINS_PER_OCTAVE * log2(cost)) : -1;
    const b = this.bins.get(bin);
    if (b === undefined) this.bins.set(bin, { calls, sum: cost * calls });
    else {
      b.calls += calls;
      b.sum += cost * calls;
    }
  }

  histogram(): Pick<CostDistribution, 'binCostNanos' | 'binCalls'> {
    const keys = [...this.bins.keys()].sort((a, b) => a - b);
    return {
      binCostNanos: keys.map((k) => {
        const b = this.bins.get(k) as { calls: number; sum: number };
        return round(b.sum / b.calls);
      }),
      binCalls: keys.map((k) => (this.bins.get(k) as { calls: number }).calls),
    };
  }
}

function isEvents(history: HistoryInput): history is { events: readonly CallRecord[] } {
  return 'events' in history;
}

/**
 * Summarizes an organization's history as of `options.end`.
 *
 * @example
 * const summary = summarizeHistory({ events: ledgerCalls }, { end: now });
 * const forecast = simulate(summary, { now, seed: 1, budgets: { dailyNanos: 50e9 } });
 * @throws ForecastError when `end` is not a finite time or `lookbackDays` is out of range
 */
export function summarizeHistory(history: HistoryInput, options: SummarizeOptions): HistorySummary {
  const end = options.end;
  if (!Number.isFinite(end)) throw new ForecastError('summarizeHistory: end must be a finite time in ms');
  const lookbackDays = options.lookbackDays ?? DEFAULT_LOOKBACK_DAYS;
  if (!(lookbackDays > 0 && lookbackDays <= 366))
    throw new ForecastError('summarizeHistory: lookbackDays must be in (0, 366]');
  // The window covers the lookback, and this month's first day so that month-to-date spend is complete.
  const windowStart = hourStart(min(end - lookbackDays * MS_PER_DAY, monthStart(end)));

  let earliest = Infinity;
  if (isEvents(history)) {
    for (const e of history.events) if (e.ts >= windowStart && e.ts < end && e.ts < earliest) earliest = e.ts;
  } else {
    for (const a of history.hourly)
      if (a.hourStart >= windowStart && a.hourStart < end && a.hourStart < earliest) earliest = a.hourStart;
  }
  const start =
    options.start !== undefined
      ? hourStart(max(options.start, windowStart))
      : earliest === Infinity
        ? end
        : hourStart(earliest);
  const hours = max(0, ceil((end - start) / MS_PER_HOUR));

  const calls = new Float64Array(hours);
  const costs = new Float64Array(hours);
  const cost = new CostAccumulator();
  const models = new Map<string, { calls: number; costNanos: number }>();
  const addModel = (model: string | undefined, n: number, c: number): void => {
    if (model === undefined) return;
    const m = models.get(model);
    if (m === undefined) models.set(model, { calls: n, costNanos: c });
    else {
      m.calls += n;
      m.costNanos += c;
    }
  };
  let exactSquares = true;
  if (isEvents(history)) {
    for (const e of history.events) {
      if (!(e.ts >= start && e.ts < end)) continue;
      const c = e.costNanos > 0 ? e.costNanos : 0;
      const b = floor((e.ts - start) / MS_PER_HOUR);
      calls[b] = (calls[b] as number) + 1;
      costs[b] = (costs[b] as number) + c;
      cost.add(c, 1);
      addModel(e.model, 1, c);
    }
  } else {
    let squares = 0;
    for (const a of history.hourly as readonly HourlyAggregate[]) {
      if (!(a.hourStart >= start && a.hourStart < end) || !(a.calls > 0)) continue;
      const b = floor((a.hourStart - start) / MS_PER_HOUR);
      const c = a.costNanos > 0 ? a.costNanos : 0;
      calls[b] = (calls[b] as number) + a.calls;
      costs[b] = (costs[b] as number) + c;
      cost.add(c / a.calls, a.calls);
      if (a.costSquaresNanos2 === undefined) exactSquares = false;
      else squares += a.costSquaresNanos2;
      for (const m of a.models ?? []) addModel(m.model, m.calls, m.costNanos);
    }
    if (exactSquares) cost.sumSquares = squares;
  }

  // Exposure per hour: 1, except a partial last hour.
  const exposure = (b: number): number =>
    b < hours - 1 ? 1 : (end - (start + b * MS_PER_HOUR)) / MS_PER_HOUR;
  let exposureHours = 0;
  let totalCalls = 0;
  let totalCost = 0;
  const howCalls = new Float64Array(HOURS_PER_WEEK);
  const howExposure = new Float64Array(HOURS_PER_WEEK);
  const how0 = hourOfWeek(start);
  for (let b = 0; b < hours; b++) {
    const x = exposure(b);
    const how = (how0 + b) % HOURS_PER_WEEK;
    howCalls[how] = (howCalls[how] as number) + (calls[b] as number);
    howExposure[how] = (howExposure[how] as number) + x;
    exposureHours += x;
    totalCalls += calls[b] as number;
    totalCost += costs[b] as number;
  }

  // Separable prior: day-of-week level × hour-of-day shape, each shrunk toward the overall rate.
  const rate = exposureHours > 0 ? totalCalls / exposureHours : 0;
  const dowCalls = new Float64Array(7);
  const dowExposure = new Float64Array(7);
  const hodCalls = new Float64Array(24);
  const hodExposure = new Float64Array(24);
  for (let how = 0; how < HOURS_PER_WEEK; how++) {
    const d = floor(how / 24);
    const h = how % 24;
    dowCalls[d] = (dowCalls[d] as number) + (howCalls[how] as number);
    dowExposure[d] = (dowExposure[d] as number) + (howExposure[how] as number);
    hodCalls[h] = (hodCalls[h] as number) + (howCalls[how] as number);
    hodExposure[h] = (hodExposure[h] as number) + (howExposure[how] as number);
  }
  const callsPerHourOfWeek: number[] = [];
  const priors: number[] = [];
  for (let how = 0; how < HOURS_PER_WEEK; how++) {
    const d = floor(how / 24);
    const h = how % 24;
    const dowRate =
      ((dowCalls[d] as number) + 24 * SHRINK_HOURS * rate) / ((dowExposure[d] as number) + 24 * SHRINK_HOURS);
    const hodRate =
      ((hodCalls[h] as number) + 7 * SHRINK_HOURS * rate) / ((hodExposure[h] as number) + 7 * SHRINK_HOURS);
    const prior = rate > 0 ? (dowRate * hodRate) / rate : 0;
    const mu =
      ((howCalls[how] as number) + SHRINK_HOURS * prior) / ((howExposure[how] as number) + SHRINK_HOURS);
    callsPerHourOfWeek.push(mu);
    priors.push(prior);
  }

  // Per-call cost moments.
  const meanNanos = cost.calls > 0 ? cost.sum / cost.calls : 0;
  let varianceNanos2 = cost.calls > 0 ? max(0, cost.sumSquares / cost.calls - meanNanos * meanNanos) : 0;
  if (!isEvents(history) && !exactSquares) {
    // Hourly means vary around m with variance v / n: v ≈ Σ n (x̄ − m)² / (K − 1).
    let acc = 0;
    let k = 0;
    for (let b = 0; b < hours; b++) {
      const n = calls[b] as number;
      if (n <= 0) continue;
      const d = (costs[b] as number) / n - meanNanos;
      acc += n * d * d;
      k++;
    }
    varianceNanos2 = k > 1 ? acc / (k - 1) : meanNanos * meanNanos;
  }

  // Day-to-day dispersion from full UTC days. With two weeks or more, each day is compared with
  // the hour-of-week profile; with less, with the hour-of-day profile only (weekday effects then
  // count as dispersion: conservative). Either profile was fitted on the days themselves, which
  // shrinks the ratios' spread by (n − 1)/n (n = days behind each profile value); it is undone below.
  const firstDay = ceil(start / MS_PER_DAY) * MS_PER_DAY;
  const dayCount = max(0, floor((end - firstDay) / MS_PER_DAY));
  const weekly = dayCount >= 14;
  const hodRates = Array.from({ length: 24 }, (_, h) =>
    (hodExposure[h] as number) > 0 ? (hodCalls[h] as number) / (hodExposure[h] as number) : 0,
  );
  const ratios: number[] = [];
  const noise: number[] = [];
  const secondMomentRatio = meanNanos > 0 ? 1 + varianceNanos2 / (meanNanos * meanNanos) : 1;
  for (let i = 0; i < dayCount; i++) {
    const b0 = (firstDay + i * MS_PER_DAY - start) / MS_PER_HOUR;
    let spend = 0;
    let expectedCalls = 0;
    for (let b = b0; b < b0 + 24; b++) {
      spend += costs[b] as number;
      const how = (how0 + b) % HOURS_PER_WEEK;
      expectedCalls += weekly ? (callsPerHourOfWeek[how] as number) : (hodRates[how % 24] as number);
    }
    if (expectedCalls <= 0 || meanNanos <= 0) continue;
    ratios.push(spend / (expectedCalls * meanNanos));
    noise.push(secondMomentRatio / expectedCalls);
  }
  const fullDays = ratios.length;
  const meanNoise = fullDays > 0 ? noise.reduce((a, b) => a + b, 0) / fullDays : secondMomentRatio;
  let ratioVariance = PRIOR_DAY_DISPERSION + meanNoise;
  let shrinkage = 1;
  if (fullDays >= 3) {
    const behind = weekly ? fullDays / 7 : fullDays;
    const mean = ratios.reduce((a, b) => a + b, 0) / fullDays;
    const fitted = ratios.reduce((a, r) => a + (r - mean) * (r - mean), 0) / (fullDays - 1);
    ratioVariance = (fitted * behind) / (behind - 1);
    // φ̂ = s² − noise is the difference of two noisy numbers when days hold few calls; weigh it
    // against the prior by precision (Var(s²) ≈ 2s⁴/(days − 1)).
    const estimateVariance = (2 * ratioVariance * ratioVariance) / (fullDays - 1);
    shrinkage = estimateVariance / (PRIOR_DISPERSION_VARIANCE + estimateVariance);
  }
  const dayDispersion = shrinkDispersion(ratioVariance, meanNoise, shrinkage);
  const exposureDays = max(exposureHours / 24, 1 / 24);
  const levelRelativeVariance = totalCalls > 0 ? max(ratioVariance, meanNoise) / exposureDays : 0;

  // Today and this month, as of `end`.
  const today = dayStart(end);
  const month = monthStart(end);
  let todayCalls = 0;
  let todayCost = 0;
  let todayExpected = 0;
  let monthCost = 0;
  for (let b = 0; b < hours; b++) {
    const t = start + b * MS_PER_HOUR;
    if (t >= month) monthCost += costs[b] as number;
    if (t >= today) {
      todayCalls += calls[b] as number;
      todayCost += costs[b] as number;
      // As for the daily ratios, today's own calls are left out of its expectation.
      const how = (how0 + b) % HOURS_PER_WEEK;
      const x = exposure(b);
      todayExpected +=
        (x * ((howCalls[how] as number) - (calls[b] as number) + SHRINK_HOURS * (priors[how] as number))) /
        ((howExposure[how] as number) - x + SHRINK_HOURS);
    }
  }

  return {
    v: 1,
    start,
    end,
    exposureHours,
    fullDays,
    calls: totalCalls,
    costNanos: totalCost,
    callsPerHourOfWeek,
    cost: { meanNanos, varianceNanos2, ...cost.histogram() },
    dayDispersion,
    levelRelativeVariance,
    dispersion: {
      ratioVariance: totalCalls > 0 ? ratioVariance : 0,
      noiseVariance: totalCalls > 0 ? meanNoise : 0,
      degreesOfFreedom: fullDays >= 3 ? fullDays - 1 : 0,
      exposureDays,
      shrinkage,
    },
    today: { dayStart: today, calls: todayCalls, costNanos: todayCost, expectedCalls: todayExpected },
    month: { monthStart: month, costNanos: monthCost, complete: start <= month },
    models: [...models.entries()]
      .map(([model, m]) => ({ model, calls: m.calls, costNanos: m.costNanos }))
      .sort((a, b) => b.costNanos - a.costNanos)
      .slice(0, 10),
  };
}
