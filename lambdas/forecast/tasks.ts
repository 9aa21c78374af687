import type { Forecast, HourlyAggregate } from '../../core/forecast';
import { simulate, summarizeHistory } from '../../core/forecast';
import { effectivePolicy, type BudgetCaps } from '../../core/guardrails/org-policy';
import { aggregateSk, periodsOf } from '../../core/ledger/aggregate-deltas';
import { nanosToUsd } from '../../core/pricing';
import type { Services } from '../shared/services';

/**
 * The three tasks of the forecast state machine (load → simulate → store), as plain functions over the
 * stores, so that Step Functions in AWS and the local runner call the same code.
 */

const HOUR_MS = 3600_000;
const LOOKBACK_DAYS = 28;

/** Task 1 (load): the organizations to forecast. */
export async function loadOrganizations(services: Pick<Services, 'orgs'>): Promise<{ orgIds: string[] }> {
  return { orgIds: await services.orgs.list() };
}

/** A forecast as the API serves it: the core result in nanos, plus dollars and a daily fan to month end. */
export interface ForecastView {
  forecast: Forecast;
  horizons: Array<{
    horizon: string;
    end: string;
    meanUsd: number;
    p50Usd: number;
    p95Usd: number;
    p99Usd: number;
    toDateUsd: number;
    budgets: Array<{ budget: string; capUsd: number; probability: number }>;
  }>;
  /** Cumulative month spend, one point per UTC day to the end of the month (month-to-date + projection). */
  fan: Array<{ date: string; p50Usd: number; p95Usd: number; p99Usd: number }>;
}

/** Task 2 (simulate): reduce the organization's last 28 days of hourly aggregates and run 10,000 iterations. */
export async function simulateOrganization(
  services: Pick<Services, 'aggregates' | 'config' | 'now'>,
  orgId: string,
): Promise<ForecastView> {
  const now = services.now();
  const from = periodsOf(now - LOOKBACK_DAYS * 24 * HOUR_MS).hour;
  const rows = await services.aggregates.range(
    orgId,
    aggregateSk.hour(from),
    aggregateSk.hour(periodsOf(now).hour),
  );
  const hourly: HourlyAggregate[] = rows.map((r) => ({
    hourStart: Date.parse(`${r.sk.slice('HOUR#'.length)}:00:00.000Z`),
    calls: r.calls,
    costNanos: r.costNanos,
  }));
  const config = await services.config.get(orgId);
  const caps = effectivePolicy(config?.policy, config?.budget as BudgetCaps | undefined).financialLimits;
  const summary = summarizeHistory({ hourly }, { end: now, lookbackDays: LOOKBACK_DAYS });
  const forecast = simulate(summary, {
    now,
    iterations: 10_000,
    seed: seedFor(orgId, now),
    budgets: { dailyNanos: caps.dailyHardCapNanos, monthlyNanos: caps.monthlyHardCapNanos },
  });
  return { forecast, horizons: forecast.horizons.map(horizonView), fan: monthFan(forecast, now) };
}

/** Task 3 (store). */
export async function storeForecast(
  services: Pick<Services, 'forecasts' | 'now'>,
  orgId: string,
  view: ForecastView,
): Promise<void> {
  await services.forecasts.put(orgId, { forecast: view, computedAt: new Date(services.now()).toISOString() });
}

function horizonView(h: Forecast['horizons'][number]) {
  return {
    horizon: h.horizon,
    end: new Date(h.end).toISOString(),
    meanUsd: nanosToUsd(h.meanNanos),
    p50Usd: nanosToUsd(h.p50Nanos),
    p95Usd: nanosToUsd(h.p95Nanos),
    p99Usd: nanosToUsd(h.p99Nanos),
    toDateUsd: nanosToUsd(h.toDateNanos),
    budgets: h.budgets.map((b) => ({
      budget: b.budget,
      capUsd: nanosToUsd(b.capNanos),
      probability: b.probability,
    })),
  };
}

/**
 * A daily fan of cumulative month spend for the overview chart. The simulation yields the quantiles at the
 * month's end; in between, each quantile's projected part is spread in proportion to elapsed time (an
 * approximation: exact at both ends, slightly narrow in the middle — docs/forecast.md).
 */
function monthFan(forecast: Forecast, now: number): ForecastView['fan'] {
  const month = forecast.horizons.find((h) => h.horizon === 'restOfMonth');
  if (!month) return [];
  const span = month.end - now;
  const points: ForecastView['fan'] = [];
  for (
    let day = Date.UTC(
      new Date(now).getUTCFullYear(),
      new Date(now).getUTCMonth(),
      new Date(now).getUTCDate() + 1,
    );
    day <= month.end;
    day += 24 * HOUR_MS
  ) {
    const f = span > 0 ? (day - now) / span : 1;
    points.push({
      date: new Date(day - 1).toISOString().slice(0, 10),
      p50Usd: nanosToUsd(month.toDateNanos + Math.round(month.p50Nanos * f)),
      p95Usd: nanosToUsd(month.toDateNanos + Math.round(month.p95Nanos * f)),
      p99Usd: nanosToUsd(month.toDateNanos + Math.round(month.p99Nanos * f)),
    });
  }
  return points;
}

/** A seed per organization and hour: the same forecast when recomputed within the hour, reproducibly. */
function seedFor(orgId: string, now: number): number {
  let h = Math.floor(now / HOUR_MS) >>> 0;
  for (let i = 0; i < orgId.length; i++) h = Math.imul(h ^ orgId.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
