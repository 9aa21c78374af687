/** Derived spend figures for the Overview: burn rates, today's cumulative curve, active flags. */
import type { Budget, HourlySpend, KillFlag, MinuteSpend } from '../api/types';

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
  hour: string;
  cumulativeUsd: number;
  hourUsd: number;
}

/** Cumulative spend of the current UTC day, hour by hour up to now (budgets use UTC periods). */
export function todayCumulative(hourly: readonly HourlySpend[], now: number, todayUsd: number): TodayPoint[] {
  const dayStart = Math.floor(now / 86_400_000) * 86_400_000;
  const byHour = new Map<number, number>();
  for (const h of hourly) {
    const t = bucketTime(h.hour);
    if (t >= dayStart && t <= now) byHour.set(t, (byHour.get(t) ?? 0) + h.costUsd);
  }
  const points: TodayPoint[] = [];
  let cumulative = 0;
  for (let t = dayStart; t <= now; t += HOUR) {
    const hourUsd = byHour.get(t) ?? 0;
    cumulative += hourUsd;
    points.push({ hour: `${String(new Date(t).getUTCHours()).padStart(2, '0')}:00`, cumulativeUsd: cumulative, hourUsd });
  }
  const last = points[points.length - 1];
  if (last && todayUsd > last.cumulativeUsd) last.cumulativeUsd = todayUsd;
  return points;
}

export function activeFlags(flags: readonly KillFlag[], now: number): KillFlag[] {
  return flags.filter((f) => {
    const expires = Date.parse(f.expiresAt);
    return Number.isNaN(expires) || expires > now;
  });
}

/** Caps of one period, for progress meters and cap lines. */
export function capsOf(budget: Budget | undefined, period: 'daily' | 'monthly'): { soft: number | null; hard: number | null } {
  if (!budget) return { soft: null, hard: null };
  return period === 'daily'
    ? { soft: budget.dailySoftLimitUsd, hard: budget.dailyLimitUsd }
    : { soft: budget.monthlySoftLimitUsd, hard: budget.monthlyLimitUsd };
}
