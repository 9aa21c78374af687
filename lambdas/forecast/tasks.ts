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
 * A daily fan of cumulative month spend for the overview chart. The simulation gives the quantiles of the
 * spend from now to the end of today, of the next 7 days and of the rest of the month; each is an anchor
 * (month-to-date + projected quantile), and days in between are interpolated linearly between anchors, so
 * the chart agrees exactly with the horizon table where they meet (docs/forecast.md).
 */
function monthFan(forecast: Forecast, now: number): ForecastView['fan'] {
  const month = forecast.horizons.find((h) => h.horizon === 'restOfMonth');
  if (!month) return [];
  type Anchor = { t: number; p50: number; p95: number; p99: number };
  const anchors: Anchor[] = [{ t: now, p50: 0, p95: 0, p99: 0 }];
  for (const id of ['restOfDay', 'next7Days', 'restOfMonth'] as const) {
    const h = forecast.horizons.find((x) => x.horizon === id);
    if (!h || h.end > month.end || h.end <= (anchors[anchors.length - 1]?.t ?? now)) continue;
    anchors.push({ t: h.end, p50: h.p50Nanos, p95: h.p95Nanos, p99: h.p99Nanos });
  }
  const at = (t: number, q: 'p50' | 'p95' | 'p99'): number => {
    for (let i = 1; i < anchors.length; i++) {
      const a = anchors[i - 1]!;
      const b = anchors[i]!;
      if (t <= b.t) return a[q] + ((b[q] - a[q]) * (t - a.t)) / (b.t - a.t);
    }
    return anchors[anchors.length - 1]![q];
  };
  const d = new Date(now);
  const points: ForecastView['fan'] = [];
  for (
    let end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
    end <= month.end;
    end += 24 * HOUR_MS
  ) {
    points.push({
      date: new Date(end - 1).toISOString().slice(0, 10),
      p50Usd: nanosToUsd(month.toDateNanos + Math.round(at(end, 'p50'))),
      p95Usd: nanosToUsd(month.toDateNanos + Math.round(at(end, 'p95'))),
      p99Usd: nanosToUsd(month.toDateNanos + Math.round(at(end, 'p99'))),
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

/** What one batch of the Distributed Map reports (small, so the map's results stay small). */
export interface BatchOutcome {
  stored: number;
  failed: number;
}

/**
 * The Distributed Map's child task: simulate → store for each organization of one batch, in turn. One
 * organization's failure is reported and does not stop the others; only a batch where every
 * organization failed throws (a broken dependency: Step Functions retries the batch).
 */
export async function forecastBatch(
  services: Pick<Services, 'aggregates' | 'config' | 'now' | 'forecasts'>,
  orgIds: readonly string[],
  onFailure: (orgId: string, err: unknown) => void,
): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { stored: 0, failed: 0 };
  let lastError: unknown;
  for (const orgId of orgIds) {
    try {
      await storeForecast(services, orgId, await simulateOrganization(services, orgId));
      outcome.stored++;
    } catch (err) {
      outcome.failed++;
      lastError = err;
      onFailure(orgId, err);
    }
  }
  if (orgIds.length > 0 && outcome.stored === 0) throw lastError;
  return outcome;
}
