/**
 * Monte Carlo projection of an organization's spend from its `HistorySummary`.
 *
 * Each iteration draws one possible future from now to the furthest horizon, one UTC day at a
 * time (never one call at a time, so the cost does not grow with traffic):
 * 1. the day-to-day variance s² of the history, from its sampling distribution (s²·k/χ²_k), and
 *    from it φ and ρ; then a level multiplier L ~ Gamma(mean 1, variance ρ): how wrong the
 *    estimated level may be;
 * 2. per UTC day, a day multiplier g ~ Gamma(mean 1, variance φ); for today it is drawn from its
 *    posterior given the calls already seen today (Gamma–Poisson conjugacy), so a busy morning
 *    raises the rest-of-day forecast;
 * 3. per segment of the day (days are cut only at horizon ends), spend for λ = L·g·Λ expected
 *    calls (Λ from the hour-of-week profile): when λ < 16, exactly — N ~ Poisson(λ) calls, each
 *    cost drawn from the empirical histogram (Walker's alias table; sums of up to 32 costs are
 *    tabulated, 512 draws each, on first use); otherwise the compound
 *    Poisson sum is drawn from the Gamma with its exact mean λ·m and variance λ·(v + m²).
 *    A day that no horizon cuts (and not today) skips g: a busy one takes one draw, the Gamma
 *    matched to the day's compound sum mixed over g (mean λm, variance λ(v + m²) + φ(λm)²); a
 *    quiet one draws its call count from the negative binomial that Poisson(λ·g) is, by
 *    inversion with constants cached per kind of day.
 * Horizon totals are read off the path; quantiles are taken over the iterations. A budget is
 * crossed in an iteration when a UTC day's (month's) spend, the spend before now included,
 * reaches the cap within the horizon.
 *
 * Cost: iterations × (days + horizons) draws — about 35 segments for 30 days.
 */
import {
  dayStart,
  hourOfWeek,
  hourStart,
  MS_PER_DAY,
  MS_PER_HOUR,
  monthStart,
  nextMonthStart,
} from './calendar';
import { ForecastError } from './errors';
import { shrinkDispersion } from './summarize';
import { SeededRandom } from './random';
import { HORIZON_IDS } from './types';
import type {
  BudgetCrossing,
  Forecast,
  HistorySummary,
  HorizonForecast,
  HorizonId,
  SimulationOptions,
} from './types';

// Math functions bound once: a global lookup per call costs ~300 ns inside Jest's vm sandbox.
const { floor, max, min, pow, round } = Math;

/** Below this many expected calls a segment's spend is drawn call by call. */
const EXACT_COMPOUND_BELOW = 16;
const DEFAULT_ITERATIONS = 10_000;

interface Segment {
  /** Expected calls (before the multipliers). */
  expectedCalls: number;
  /** UTC day, counted from today = 0. */
  day: number;
  /** Start of the UTC month of the segment. */
  month: number;
  /** Indexes (into the requested horizons) of the horizons that end with this segment. */
  ends: number[];
}

/** Sums of n costs tabulated for n ≤ this; larger n (rare below λ = 16) are drawn call by call. */
const TABULATED_SUMS = 32;
/** Draws kept per tabulated n. */
const TABLE_SIZE = 512;

/**
 * Walker's alias table over the histogram's bins, and lazily tabulated sums of n draws: for a
 * quiet organization most days have a handful of calls, and drawing a day's spend becomes one
 * Poisson draw and one table pick instead of n alias draws.
 */
class CostSampler {
  readonly prob: Float64Array;
  readonly alias: Int32Array;
  private readonly sums: (Float64Array | undefined)[] = [];
  constructor(
    readonly values: readonly number[],
    weights: readonly number[],
  ) {
    const n = weights.length;
    this.prob = new Float64Array(n);
    this.alias = new Int32Array(n);
    const total = weights.reduce((a, b) => a + b, 0);
    const scaled = weights.map((w) => (w * n) / total);
    const small: number[] = [];
    const large: number[] = [];
    scaled.forEach((p, i) => (p < 1 ? small : large).push(i));
    while (small.length > 0 && large.length > 0) {
      const s = small.pop() as number;
      const l = large.pop() as number;
      this.prob[s] = scaled[s] as number;
      this.alias[s] = l;
      scaled[l] = (scaled[l] as number) + (scaled[s] as number) - 1;
      ((scaled[l] as number) < 1 ? small : large).push(l);
    }
    for (const i of [...small, ...large]) this.prob[i] = 1;
  }

  /** One cost. One uniform serves both choices: its integer part picks the column, its fraction the side. */
  draw(rng: SeededRandom): number {
    const x = rng.uniform() * this.prob.length;
    const i = floor(x);
    return this.values[x - i < (this.prob[i] as number) ? i : (this.alias[i] as number)] as number;
  }

  /** The sum of n costs. */
  sum(n: number, rng: SeededRandom): number {
    if (n <= 0) return 0;
    if (n > TABULATED_SUMS) {
      let total = 0;
      for (let k = 0; k < n; k++) total += this.draw(rng);
      return total;
    }
    let table = this.sums[n];
    if (table === undefined) {
      table = new Float64Array(TABLE_SIZE);
      for (let j = 0; j < TABLE_SIZE; j++) {
        let total = 0;
        for (let k = 0; k < n; k++) total += this.draw(rng);
        table[j] = total;
      }
      this.sums[n] = table;
    }
    return table[rng.int(TABLE_SIZE)] as number;
  }
}

function horizonEnd(id: HorizonId, now: number): number {
  switch (id) {
    case 'restOfDay':
      return dayStart(now) + MS_PER_DAY;
    case 'restOfMonth':
      return nextMonthStart(now);
    case 'next7Days':
      return now + 7 * MS_PER_DAY;
    case 'next30Days':
      return now + 30 * MS_PER_DAY;
  }
}

/** Expected calls in [a, b) from the hour-of-week profile, with partial hours pro rata. */
function expectedCalls(profile: readonly number[], a: number, b: number): number {
  let total = 0;
  for (let t = a; t < b;) {
    const next = min(hourStart(t) + MS_PER_HOUR, b);
    total += ((profile[hourOfWeek(t)] ?? 0) * (next - t)) / MS_PER_HOUR;
    t = next;
  }
  return total;
}

/** Type-7 (linear interpolation) quantile of sorted values. */
function quantile(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = floor(h);
  const a = sorted[lo] as number;
  const b = sorted[min(lo + 1, sorted.length - 1)] as number;
  return a + (h - lo) * (b - a);
}

function validate(
  summary: HistorySummary,
  options: SimulationOptions,
): { iterations: number; horizons: readonly HorizonId[] } {
  if (
    summary?.v !== 1 ||
    !Array.isArray(summary.callsPerHourOfWeek) ||
    summary.callsPerHourOfWeek.length !== 168
  ) {
    throw new ForecastError('simulate: not a HistorySummary (v1)');
  }
  if (!Number.isFinite(options.now)) throw new ForecastError('simulate: now must be a finite time in ms');
  if (!Number.isFinite(options.seed)) throw new ForecastError('simulate: seed must be a finite number');
  const iterations = options.iterations ?? DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > 1_000_000) {
    throw new ForecastError('simulate: iterations must be an integer in [1, 1,000,000]');
  }
  const horizons = options.horizons ?? HORIZON_IDS;
  if (horizons.length === 0 || horizons.some((h) => !HORIZON_IDS.includes(h))) {
    throw new ForecastError(`simulate: horizons must be a non-empty subset of ${HORIZON_IDS.join(', ')}`);
  }
  for (const cap of [options.budgets?.dailyNanos, options.budgets?.monthlyNanos]) {
    if (cap !== undefined && cap !== null && !(cap >= 0))
      throw new ForecastError('simulate: budgets must be non-negative nanos');
  }
  return { iterations, horizons };
}

/**
 * Runs the Monte Carlo forecast. Deterministic for a given summary, options and seed.
 *
 * @example
 * const f = simulate(summary, { now, seed: 42, budgets: { dailyNanos: 100e9, monthlyNanos: 2000e9 } });
 * f.horizons.find((h) => h.horizon === 'restOfMonth')?.p95Nanos; // 95th percentile of the rest of the month
 * @throws ForecastError on invalid options or a malformed summary
 */
export function simulate(summary: HistorySummary, options: SimulationOptions): Forecast {
  const { iterations, horizons } = validate(summary, options);
  const now = options.now;
  const ends = horizons.map((h) => horizonEnd(h, now));
  const last = max(...ends);
  const today = dayStart(now);

  // Segments: [now, last) cut at every UTC midnight and every horizon end.
  const cuts = new Set<number>([now, last, ...ends]);
  for (let d = today + MS_PER_DAY; d < last; d += MS_PER_DAY) cuts.add(d);
  const points = [...cuts].sort((a, b) => a - b);
  const segments: Segment[] = [];
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i] as number;
    const b = points[i + 1] as number;
    segments.push({
      expectedCalls: expectedCalls(summary.callsPerHourOfWeek, a, b),
      day: floor((a - today) / MS_PER_DAY),
      month: monthStart(a),
      ends: ends.flatMap((e, h) => (e === b ? [h] : [])),
    });
  }
  const lastSegment = ends.map((e) => points.indexOf(e) - 1);
  const days: { day: number; first: number; last: number; expectedCalls: number; kind: number }[] = [];
  segments.forEach((seg, i) => {
    const group = days[days.length - 1];
    if (group !== undefined && group.day === seg.day) {
      group.last = i;
      group.expectedCalls += seg.expectedCalls;
    } else days.push({ day: seg.day, first: i, last: i, expectedCalls: seg.expectedCalls, kind: 0 });
  });
  // Full days of the same weekday expect the same calls: their negative-binomial constants are
  // computed once per iteration per distinct value ("kind"), not once per day.
  const kinds: number[] = [];
  for (const group of days) {
    let k = kinds.indexOf(group.expectedCalls);
    if (k < 0) k = kinds.push(group.expectedCalls) - 1;
    group.kind = k;
  }
  const kindQ = new Float64Array(kinds.length);
  const kindP0 = new Float64Array(kinds.length);

  const meanCost = summary.cost.meanNanos;
  const secondMoment = summary.cost.varianceNanos2 + meanCost * meanCost;
  const histogram =
    summary.cost.binCalls.length > 0
      ? new CostSampler(summary.cost.binCostNanos, summary.cost.binCalls)
      : null;
  const { ratioVariance, noiseVariance, degreesOfFreedom: dof, exposureDays, shrinkage } = summary.dispersion;
  const sameDay = summary.today.dayStart === today;
  const spentToday = options.spentTodayNanos ?? (sameDay ? summary.today.costNanos : 0);
  const spentThisMonth =
    options.spentThisMonthNanos ??
    (summary.month.monthStart === monthStart(now) ? summary.month.costNanos : 0);
  const dailyCap = options.budgets?.dailyNanos ?? null;
  const monthlyCap = options.budgets?.monthlyNanos ?? null;
  const posteriorExposure = sameDay ? summary.today.expectedCalls : 0;

  const rng = new SeededRandom(options.seed);
  const samples = horizons.map(() => new Float64Array(iterations));
  const dailyCrossings = new Float64Array(horizons.length);
  const monthlyCrossings = new Float64Array(horizons.length);
  const NEVER = segments.length;
  const firstMonth = segments[0]?.month ?? monthStart(now);

  for (let it = 0; it < iterations; it++) {
    // Dispersion and level uncertainty for this iteration (point estimates when φ is the prior).
    let phi = summary.dayDispersion;
    let rho = summary.levelRelativeVariance;
    if (dof >= 2 && rho > 0) {
      const s2 = ratioVariance / ((2 * rng.gamma(dof / 2)) / dof);
      phi = shrinkDispersion(s2, noiseVariance, shrinkage);
      rho = max(s2, noiseVariance) / exposureDays;
    }
    const level = rho > 0 ? rng.gammaMeanVar(1, rho) : 1;
    const posteriorShape = phi > 0 && sameDay ? 1 / phi + summary.today.calls : 0;
    kindP0.fill(-1);
    let total = 0;
    let month = firstMonth;
    let monthTotal = spentThisMonth;
    let dailyCross = dailyCap !== null && spentToday >= dailyCap ? -1 : NEVER;
    let monthlyCross = monthlyCap !== null && spentThisMonth >= monthlyCap ? -1 : NEVER;
    for (let d = 0; d < days.length; d++) {
      const group = days[d] as (typeof days)[number];
      let dayTotal = group.day === 0 ? spentToday : 0;
      // A whole day in one draw: the compound sum mixed over the day multiplier g, matched on
      // mean λm and variance λ(v + m²) + φ(λm)². Days cut by a horizon end, today (posterior g)
      // and quiet days (exact compound sampling) draw g explicitly.
      const lambdaDay = level * group.expectedCalls;
      const oneDraw = group.last === group.first && group.day !== 0 && lambdaDay >= EXACT_COMPOUND_BELOW;
      // A quiet day that no horizon cuts (and not today): draw its call count from the negative
      // binomial directly instead of g, then Poisson.
      const negativeBinomialDay =
        !oneDraw &&
        phi > 0 &&
        group.last === group.first &&
        group.day !== 0 &&
        histogram !== null &&
        lambdaDay < EXACT_COMPOUND_BELOW;
      let g = 1;
      if (!oneDraw && !negativeBinomialDay && phi > 0) {
        g =
          group.day === 0 && posteriorShape > 0
            ? rng.gamma(posteriorShape) / (1 / phi + level * posteriorExposure)
            : rng.gammaMeanVar(1, phi);
      }
      for (let s = group.first; s <= group.last; s++) {
        const seg = segments[s] as Segment;
        if (seg.month !== month) {
          month = seg.month;
          monthTotal = 0;
        }
        let spend = 0;
        if (oneDraw) {
          const mean = lambdaDay * meanCost;
          spend = rng.gammaMeanVar(mean, lambdaDay * secondMoment + phi * mean * mean);
        } else {
          const lambda = level * g * seg.expectedCalls;
          if (lambda > 0 && meanCost > 0) {
            if (negativeBinomialDay && histogram !== null) {
              // A quiet day in one piece: calls ~ Poisson(L·g·Λ) with g ~ Gamma(1/φ) is a negative
              // binomial, drawn by inversion (constants cached per kind of day for this iteration).
              const r = 1 / phi;
              if ((kindP0[group.kind] as number) < 0) {
                const q = lambda / (lambda + r);
                kindQ[group.kind] = q;
                kindP0[group.kind] = pow(1 - q, r);
              }
              spend = histogram.sum(
                rng.negativeBinomialByInversion(kindP0[group.kind] as number, kindQ[group.kind] as number, r),
                rng,
              );
            } else if (lambda < EXACT_COMPOUND_BELOW && histogram !== null) {
              spend = histogram.sum(rng.poisson(lambda), rng);
            } else {
              spend = rng.gammaMeanVar(lambda * meanCost, lambda * secondMoment);
            }
          }
        }
        total += spend;
        dayTotal += spend;
        monthTotal += spend;
        if (dailyCross === NEVER && dailyCap !== null && dayTotal >= dailyCap) dailyCross = s;
        if (monthlyCross === NEVER && monthlyCap !== null && monthTotal >= monthlyCap) monthlyCross = s;
        for (const h of seg.ends) (samples[h] as Float64Array)[it] = total;
      }
    }
    for (let h = 0; h < horizons.length; h++) {
      const lastSeg = lastSegment[h] as number;
      if (dailyCross <= lastSeg) dailyCrossings[h] = (dailyCrossings[h] as number) + 1;
      if (monthlyCross <= lastSeg) monthlyCrossings[h] = (monthlyCrossings[h] as number) + 1;
    }
  }

  const out: HorizonForecast[] = horizons.map((horizon, h) => {
    const sorted = (samples[h] as Float64Array).sort();
    let sum = 0;
    for (const x of sorted) sum += x;
    const budgets: BudgetCrossing[] = [];
    if (dailyCap !== null)
      budgets.push({
        budget: 'daily',
        capNanos: dailyCap,
        probability: (dailyCrossings[h] as number) / iterations,
      });
    if (monthlyCap !== null) {
      budgets.push({
        budget: 'monthly',
        capNanos: monthlyCap,
        probability: (monthlyCrossings[h] as number) / iterations,
      });
    }
    return {
      horizon,
      start: now,
      end: ends[h] as number,
      meanNanos: round(sum / iterations),
      p50Nanos: round(quantile(sorted, 0.5)),
      p95Nanos: round(quantile(sorted, 0.95)),
      p99Nanos: round(quantile(sorted, 0.99)),
      toDateNanos: horizon === 'restOfDay' ? spentToday : horizon === 'restOfMonth' ? spentThisMonth : 0,
      budgets,
    };
  });

  return {
    now,
    iterations,
    seed: options.seed,
    horizons: out,
    model: {
      callsPerDay: summary.callsPerHourOfWeek.reduce((a, b) => a + b, 0) / 7,
      meanCostNanos: meanCost,
      dayDispersion: summary.dayDispersion,
      levelRelativeVariance: summary.levelRelativeVariance,
    },
  };
}
