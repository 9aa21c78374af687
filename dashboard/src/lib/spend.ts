/** Derived spend figures for the Overview: burn rates, today's cumulative curve, active flags. */
import type { Budget, ForecastHorizon, HourlySpend, KillFlag, MinuteSpend } from '../api/types';

const HOUR = 3_600_000;

/** Start of a bucket: accepts full ISO times and the short `2026-11-22T13` / `2026-11-22T13:05` keys. */
export function bucketTime(label: string): number {
  if (/^\d{4}-\d{2}-\d{2}T\d{2}$/.test(label)) return Date.parse(`${label}:00:00Z`);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(label)) return Date.parse(`${label}:00Z`);
  return Date.parse(label);
}

/** USD per hour over the last 60 minutes, from the per-minute buckets. */
export function lastHourRate(minutes: readonly MinuteSpend[], now: number): number {
  const since = now - HOUR;
  return minutes.reduce((sum, m) => {
    const t = bucketTime(m.minute);
    return t > since && t <= now ? sum + m.costUsd : sum;
  }, 0);
}

/** Average USD per hour over the last `hours` hours (the current, partial hour included). */
export function averageHourlyRate(hourly: readonly HourlySpend[], now: number, hours = 6): number {
  const start = Math.floor(now / HOUR) * HOUR - (hours - 1) * HOUR;
  const elapsedHours = Math.max((now - start) / HOUR, 1 / 60);
  const sum = hourly.reduce((s, h) => (bucketTime(h.hour) >= start ? s + h.costUsd : s), 0);
  return sum / elapsedHours;
}

export interface TodayPoint {
  /** Hours since UTC midnight (0–24). */
  t: number;
  /** Spend so far at `t`. */
  actualUsd?: number;
  /** Projected P50 day total (from now to midnight). */
  projectedUsd?: number;
  /** Projected P50–P95 band. */
  band?: [number, number];
}

const DAY = 86_400_000;

/**
 * Today's spend curve (UTC day, as the budgets): spend before each full hour, then now (`todayUsd`),
 * then — with the forecast's end-of-day horizon — a projection to midnight.
 */
export function todayCurve(
  hourly: readonly HourlySpend[],
  now: number,
  todayUsd: number,
  endOfDay?: { p50Usd: number; p95Usd: number },
): TodayPoint[] {
  const dayStart = Math.floor(now / DAY) * DAY;
  const byHour = new Map<number, number>();
  for (const h of hourly) {
    const t = bucketTime(h.hour);
    if (t >= dayStart && t <= now) byHour.set(t, (byHour.get(t) ?? 0) + h.costUsd);
  }
  const points: TodayPoint[] = [{ t: 0, actualUsd: 0 }];
  let cumulative = 0;
  for (let t = dayStart; t + HOUR <= now; t += HOUR) {
    cumulative += byHour.get(t) ?? 0;
    points.push({ t: (t + HOUR - dayStart) / HOUR, actualUsd: cumulative });
  }
  const nowT = (now - dayStart) / HOUR;
  const current = Math.max(todayUsd, cumulative);
  if (nowT > (points[points.length - 1]?.t ?? 0)) points.push({ t: nowT, actualUsd: current });
  if (endOfDay) {
    const last = points[points.length - 1]!;
    last.projectedUsd = current;
    last.band = [current, current];
    const p50 = Math.max(endOfDay.p50Usd, current);
    points.push({ t: 24, projectedUsd: p50, band: [p50, Math.max(endOfDay.p95Usd, p50)] });
  }
  return points;
}

export function activeFlags(flags: readonly KillFlag[], now: number): KillFlag[] {
  return flags.filter((f) => {
    const expires = Date.parse(f.expiresAt);
    return Number.isNaN(expires) || expires > now;
  });
}

/** Caps of one period, for progress meters and cap lines. */
export function capsOf(
  budget: Budget | undefined,
  period: 'daily' | 'monthly',
): { soft: number | null; hard: number | null } {
  if (!budget) return { soft: null, hard: null };
  return period === 'daily'
    ? { soft: budget.dailySoftLimitUsd, hard: budget.dailyLimitUsd }
    : { soft: budget.monthlySoftLimitUsd, hard: budget.monthlyLimitUsd };
}

/**
 * The forecast horizon that ends with the current UTC day (`restOfDay`: its `endsAt` within an hour of
 * midnight, else one named like it).
 */
export function endOfDayHorizon(
  horizons: readonly ForecastHorizon[],
  now: number,
): ForecastHorizon | undefined {
  const midnight = Math.floor(now / DAY) * DAY + DAY;
  return (
    horizons.find((h) => h.endsAt !== null && Math.abs(Date.parse(h.endsAt) - midnight) <= HOUR) ??
    horizons.find((h) => /^(rest_?of_?day|end_?of_?day|today)$/i.test(h.name))
  );
}

/** The forecast horizon that ends with the current UTC month (`restOfMonth`). */
export function endOfMonthHorizon(horizons: readonly ForecastHorizon[]): ForecastHorizon | undefined {
  return horizons.find((h) => /^(rest|end)_?of_?month$/i.test(h.name));
}

/** A period's projected total at a percentile: spend to date plus the projection from now. */
export function projectedTotal(h: ForecastHorizon, p: 'p50Usd' | 'p95Usd' | 'p99Usd'): number {
  return h.toDateUsd + h[p];
}
