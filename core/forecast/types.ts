/** Types of the Monte Carlo spend forecast. Money is integer nano-USD (1 USD = 1e9 nanos). */

/** One priced call (what the ledger holds). */
export interface CallRecord {
  /** Time of the call, ms since epoch. */
  ts: number;
  /** Price of the call in integer nano-USD. */
  costNanos: number;
  /** Model identifier (kept only for the model-mix breakdown). */
  model?: string;
}

/** One hour of an organization's usage, as the ledger's hourly aggregates hold it. */
export interface HourlyAggregate {
  /** Start of the UTC hour, ms since epoch. */
  hourStart: number;
  calls: number;
  costNanos: number;
  /**
   * Sum of the squared costs of the hour's calls (nanos²), when the aggregate keeps it: it makes
   * the per-call variance exact. Without it the variance is estimated from hour-to-hour variation.
   */
  costSquaresNanos2?: number;
  /** Calls and cost per model, when kept (model-mix breakdown only). */
  models?: { model: string; calls: number; costNanos: number }[];
}

/** History to summarize: individual calls, or hourly aggregates. */
export type HistoryInput = { events: readonly CallRecord[] } | { hourly: readonly HourlyAggregate[] };

export interface SummarizeOptions {
  /** End of the history (exclusive), usually now; ms since epoch. */
  end: number;
  /** History older than this many days before `end` is ignored (default 28). */
  lookbackDays?: number;
  /**
   * Start of the history (inclusive). Defaults to the first hour with data, or `end − lookbackDays`,
   * whichever is later: an organization that started using the service yesterday has one day of
   * exposure, not 28 days of zeros.
   */
  start?: number;
}

/**
 * The history reduced to what the simulation needs: independent of its size, a few KB of JSON.
 * Built by `summarizeHistory`, consumed by `simulate`.
 */
export interface HistorySummary {
  v: 1;
  /** Covered period [start, end), ms. */
  start: number;
  end: number;
  /** Hours of exposure in the covered period (the last one may be partial). */
  exposureHours: number;
  /** Full UTC days in the covered period (used for day-to-day dispersion). */
  fullDays: number;
  calls: number;
  costNanos: number;
  /** Expected calls in each hour of the week (0 = Monday 00:00 UTC), shrunk toward the hour-of-day profile. */
  callsPerHourOfWeek: number[];
  /** Per-call cost distribution. */
  cost: CostDistribution;
  /**
   * Day-to-day dispersion φ: each day's spend is its expected spend times a Gamma multiplier of
   * mean 1 and variance φ (estimated from the daily totals beyond Poisson + cost noise).
   */
  dayDispersion: number;
  /** Relative variance of the estimated spend level (parameter uncertainty). */
  levelRelativeVariance: number;
  /**
   * What φ and the level's variance were estimated from, so that `simulate` can draw them per
   * iteration instead of trusting point estimates: the sample variance s² of the daily
   * spend/expected ratios, its Poisson-and-cost part, its degrees of freedom (full days − 1;
   * 0 when φ is the prior), the days of exposure, and the weight of the prior.
   */
  dispersion: {
    ratioVariance: number;
    noiseVariance: number;
    degreesOfFreedom: number;
    exposureDays: number;
    /** Weight of the prior φ against the data (0 = the data alone, 1 = the prior alone). */
    shrinkage: number;
  };
  /** The UTC day containing `end`: calls and spend so far, and the calls the profile expected. */
  today: { dayStart: number; calls: number; costNanos: number; expectedCalls: number };
  /** The UTC month containing `end`: spend so far; `complete` false when the history starts after the 1st. */
  month: { monthStart: number; costNanos: number; complete: boolean };
  /** Model mix: calls and spend per model, the 10 largest by spend. */
  models: { model: string; calls: number; costNanos: number }[];
}

/** Empirical per-call cost distribution: moments, and a log-binned histogram for small call counts. */
export interface CostDistribution {
  meanNanos: number;
  /** Variance of one call's cost (nanos²). */
  varianceNanos2: number;
  /** Histogram: the mean cost of the calls in each bin (integer nanos), and their number. */
  binCostNanos: number[];
  binCalls: number[];
}

export type HorizonId = 'restOfDay' | 'restOfMonth' | 'next7Days' | 'next30Days';

export const HORIZON_IDS: readonly HorizonId[] = Object.freeze([
  'restOfDay',
  'restOfMonth',
  'next7Days',
  'next30Days',
]);

export interface SimulationOptions {
  /** Time the forecast is made at, ms. The summary should end at (or just before) it. */
  now: number;
  /** Horizons to project (default all four). */
  horizons?: readonly HorizonId[];
  /** Monte Carlo iterations (default 10,000). */
  iterations?: number;
  /** Seed of the pseudo-random generator: same seed, same forecast. */
  seed: number;
  /** Budgets whose crossing probability to report; null or absent = not configured. */
  budgets?: { dailyNanos?: number | null; monthlyNanos?: number | null };
  /** Spend of today (UTC) before `now`; defaults to the summary's `today` when it is the same day. */
  spentTodayNanos?: number;
  /** Spend of this month (UTC) before `now`; defaults to the summary's `month` when it is the same month. */
  spentThisMonthNanos?: number;
}

export interface BudgetCrossing {
  budget: 'daily' | 'monthly';
  capNanos: number;
  /** Probability that some UTC day (month) touched by the horizon reaches the cap, spend to date included. */
  probability: number;
}

export interface HorizonForecast {
  horizon: HorizonId;
  start: number;
  end: number;
  /** Projected spend between `start` (= now) and `end`, integer nanos. */
  meanNanos: number;
  p50Nanos: number;
  p95Nanos: number;
  p99Nanos: number;
  /** Spend already made in the period before `now` (today for restOfDay, this month for restOfMonth; else 0). */
  toDateNanos: number;
  budgets: BudgetCrossing[];
}

export interface Forecast {
  now: number;
  iterations: number;
  seed: number;
  horizons: HorizonForecast[];
  /** The fitted model, for display: expected calls per day and mean cost per call. */
  model: { callsPerDay: number; meanCostNanos: number; dayDispersion: number; levelRelativeVariance: number };
}
