import { useState } from 'react';

import { useApiClient } from '../api/context';
import type { Budget } from '../api/types';
import { Card } from '../components/Card';
import { ForecastChart, HourlyChart, ModelChart, ProviderChart, SpendTodayChart } from '../components/charts';
import { Empty, ErrorNotice, Loading } from '../components/Status';
import { formatDateTime, formatInt, formatPercent, formatUsd, humanize } from '../lib/format';
import {
  averageHourlyRate,
  capsOf,
  endOfDayHorizon,
  endOfMonthHorizon,
  lastHourRate,
  projectedTotal,
  todayCurve,
} from '../lib/spend';
import { useAsync } from '../lib/useAsync';
import { useNow } from '../lib/useNow';
import { ActiveFlags } from '../components/ActiveFlags';

// Kept here too: other modules import it from the page that introduced it.
export { useNow } from '../lib/useNow';

function LegendItem({ swatch, children }: { swatch: string; children: string }) {
  return (
    <span className="legend-item">
      <span className={`swatch swatch-${swatch}`} aria-hidden="true" />
      {children}
    </span>
  );
}

function BudgetMeter({
  label,
  spent,
  soft,
  hard,
}: {
  label: string;
  spent: number;
  soft: number | null;
  hard: number | null;
}) {
  const max = hard ?? soft;
  if (max === null || max <= 0) {
    return <p className="muted">No {label.toLowerCase()} cap set.</p>;
  }
  const pct = (v: number) => `${Math.min(100, (v / max) * 100)}%`;
  const level = hard !== null && spent >= hard ? 'over' : soft !== null && spent >= soft ? 'warn' : 'ok';
  return (
    <div className="meter-wrap">
      <div
        className={`meter meter-${level}`}
        role="meter"
        aria-label={`${label} spend against the ${hard !== null ? 'hard' : 'soft'} cap`}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={Math.min(spent, max)}
        aria-valuetext={`${formatUsd(spent)} of ${formatUsd(max)}`}
      >
        <div className="meter-fill" style={{ width: pct(spent) }} />
        {soft !== null && hard !== null && (
          <div className="meter-mark meter-soft" style={{ left: pct(soft) }} />
        )}
      </div>
      <p className="meter-legend">
        {soft !== null && <span>soft {formatUsd(soft)}</span>}
        {hard !== null && <span>hard {formatUsd(hard)}</span>}
      </p>
    </div>
  );
}

export function Overview() {
  const api = useApiClient();
  const budget = useAsync((signal) => api.getBudget(signal), [api]);
  const spend = useAsync((signal) => api.getSpend(signal), [api]);
  const forecast = useAsync((signal) => api.getForecast(signal), [api]);
  const [running, setRunning] = useState(false);

  // Charts and rates follow the clock every 30 s.
  const now = useNow(30_000);
  const b: Budget | undefined = budget.data?.budget;

  async function runForecast() {
    setRunning(true);
    try {
      await api.runForecast();
    } catch {
      // The reload below shows the error state of GET /v1/forecast if the service is failing.
    } finally {
      setRunning(false);
      forecast.reload();
    }
  }

  const monthEnd = forecast.data ? endOfMonthHorizon(forecast.data.horizons) : undefined;
  const dayEnd = forecast.data ? endOfDayHorizon(forecast.data.horizons, now) : undefined;
  // Month-end totals: the fan's last day (cumulative), else spend to date + the restOfMonth projection.
  const lastPoint = forecast.data?.daily[forecast.data.daily.length - 1];
  const projected =
    lastPoint ??
    (monthEnd && {
      p50Usd: projectedTotal(monthEnd, 'p50Usd'),
      p95Usd: projectedTotal(monthEnd, 'p95Usd'),
      p99Usd: projectedTotal(monthEnd, 'p99Usd'),
    });
  const dailyCaps = capsOf(b, 'daily');
  const monthlyCaps = capsOf(b, 'monthly');

  return (
    <div className="page">
      <h1>Overview</h1>

      <ActiveFlags onResumed={budget.reload} />

      <div className="stats">
        <Card title="Today">
          {budget.status === 'error' && !budget.data ? (
            <ErrorNotice error={budget.error} onRetry={budget.reload} />
          ) : !budget.data ? (
            <Loading />
          ) : (
            <>
              <p className="stat-value">{formatUsd(budget.data.spend.todayUsd)}</p>
              <BudgetMeter label="Daily" spent={budget.data.spend.todayUsd} {...capsOf(b, 'daily')} />
              {budget.data.remaining.dailyUsd !== null && (
                <p className="muted">{formatUsd(budget.data.remaining.dailyUsd)} left today (UTC)</p>
              )}
            </>
          )}
        </Card>
        <Card title="This month">
          {budget.status === 'error' && !budget.data ? (
            <ErrorNotice error={budget.error} onRetry={budget.reload} />
          ) : !budget.data ? (
            <Loading />
          ) : (
            <>
              <p className="stat-value">{formatUsd(budget.data.spend.monthUsd)}</p>
              <BudgetMeter label="Monthly" spent={budget.data.spend.monthUsd} {...capsOf(b, 'monthly')} />
              <p className="muted">
                Status:{' '}
                <span className={`badge badge-${budget.data.status === 'ok' ? 'ok' : 'warn'}`}>
                  {humanize(budget.data.status)}
                </span>
              </p>
            </>
          )}
        </Card>
        <Card title="Burn rate">
          {spend.status === 'error' && !spend.data ? (
            <ErrorNotice error={spend.error} onRetry={spend.reload} />
          ) : !spend.data ? (
            <Loading />
          ) : (
            <>
              <p className="stat-value">
                {formatUsd(
                  spend.data.minutes.length
                    ? lastHourRate(spend.data.minutes, now)
                    : averageHourlyRate(spend.data.hourly, now, 1),
                )}
                <span className="unit">/h</span>
              </p>
              <p className="muted">over the last 60 minutes</p>
              <p className="muted">
                {formatUsd(averageHourlyRate(spend.data.hourly, now, 6))}/h average over 6 h
              </p>
            </>
          )}
        </Card>
        <Card title="Month-end forecast">
          {forecast.status === 'error' && !forecast.data ? (
            <ErrorNotice error={forecast.error} onRetry={forecast.reload} />
          ) : !forecast.data ? (
            <Loading />
          ) : !projected ? (
            <Empty>No forecast yet.</Empty>
          ) : (
            <>
              <p className="stat-value">{formatUsd(projected.p50Usd)}</p>
              <p className="muted">
                P50 · P95 {formatUsd(projected.p95Usd)} · P99 {formatUsd(projected.p99Usd)}
              </p>
            </>
          )}
        </Card>
      </div>

      <div className="grid">
        <Card title="Spend today vs daily caps (UTC)" className="span-2">
          {spend.status === 'error' && !spend.data ? (
            <ErrorNotice error={spend.error} onRetry={spend.reload} />
          ) : !spend.data ? (
            <Loading />
          ) : (
            <>
              <SpendTodayChart
                points={todayCurve(
                  spend.data.hourly,
                  now,
                  Math.max(spend.data.todayUsd, budget.data?.spend.todayUsd ?? 0),
                  dayEnd && {
                    p50Usd: projectedTotal(dayEnd, 'p50Usd'),
                    p95Usd: projectedTotal(dayEnd, 'p95Usd'),
                  },
                )}
                caps={dailyCaps}
              />
              <p className="legend">
                <LegendItem swatch="actual">spent</LegendItem>
                {dayEnd && <LegendItem swatch="p50 swatch-dashed">projected P50</LegendItem>}
                {dayEnd && <LegendItem swatch="95">P50–P95</LegendItem>}
                {dailyCaps.soft !== null && <LegendItem swatch="soft">soft cap</LegendItem>}
                {dailyCaps.hard !== null && <LegendItem swatch="hard">hard cap</LegendItem>}
              </p>
              {dailyCaps.soft === null && dailyCaps.hard === null && (
                <p className="muted small">
                  No daily cap is set: add one on the <a href="#/budgets">Budgets</a> page.
                </p>
              )}
            </>
          )}
        </Card>

        <Card
          title="Forecast to month end"
          className="span-2"
          actions={
            <button
              type="button"
              className="btn btn-small"
              onClick={() => void runForecast()}
              disabled={running}
            >
              {running ? 'Running…' : 'Run forecast now'}
            </button>
          }
        >
          {forecast.status === 'error' && !forecast.data ? (
            <ErrorNotice error={forecast.error} onRetry={forecast.reload} />
          ) : !forecast.data ? (
            <Loading />
          ) : forecast.data.daily.length === 0 && forecast.data.horizons.length === 0 ? (
            <Empty>
              No forecast has been computed yet. It needs some spend history; try “Run forecast now”.
            </Empty>
          ) : (
            <>
              <ForecastChart
                forecast={forecast.data}
                monthUsd={budget.data?.spend.monthUsd ?? spend.data?.monthUsd ?? 0}
                caps={monthlyCaps}
                now={now}
              />
              <p className="legend">
                <LegendItem swatch="p50">P50</LegendItem>
                <LegendItem swatch="95">P50–P95</LegendItem>
                <LegendItem swatch="99">P95–P99</LegendItem>
                {forecast.data.daily.length > 0 && monthlyCaps.soft !== null && (
                  <LegendItem swatch="soft">soft cap</LegendItem>
                )}
                {forecast.data.daily.length > 0 && monthlyCaps.hard !== null && (
                  <LegendItem swatch="hard">hard cap</LegendItem>
                )}
              </p>
              {forecast.data.computedAt && (
                <p className="muted small">
                  Monte Carlo, computed {formatDateTime(forecast.data.computedAt)}
                </p>
              )}
              {forecast.data.horizons.length > 0 && (
                <ul className="horizons" aria-label="Forecast horizons">
                  {forecast.data.horizons.map((h) => (
                    <li key={h.name}>
                      <p className="horizon-name">
                        <strong>{humanize(h.name)}</strong>
                        {h.endsAt && (
                          <span className="muted small"> · to {formatDateTime(h.endsAt).slice(0, 16)}</span>
                        )}
                      </p>
                      <table className="horizon-table">
                        <thead>
                          <tr>
                            <td />
                            <th scope="col">P50</th>
                            <th scope="col">P95</th>
                            <th scope="col">P99</th>
                          </tr>
                        </thead>
                        <tbody>
                          <tr>
                            <th scope="row">From now</th>
                            <td>{formatUsd(h.p50Usd)}</td>
                            <td>{formatUsd(h.p95Usd)}</td>
                            <td>{formatUsd(h.p99Usd)}</td>
                          </tr>
                          {h.toDateUsd > 0 && (
                            <tr>
                              <th scope="row">Period total</th>
                              <td>{formatUsd(projectedTotal(h, 'p50Usd'))}</td>
                              <td>{formatUsd(projectedTotal(h, 'p95Usd'))}</td>
                              <td>{formatUsd(projectedTotal(h, 'p99Usd'))}</td>
                            </tr>
                          )}
                        </tbody>
                      </table>
                      {h.meanUsd !== null && (
                        <p className="muted small">Mean from now {formatUsd(h.meanUsd)}</p>
                      )}
                      {h.budgets.length > 0 && (
                        <p className="small">
                          {h.budgets
                            .map(
                              (c) =>
                                `${humanize(c.budget)} cap ${formatUsd(c.capUsd)} reached: ${formatPercent(c.probability)}`,
                            )
                            .join(' · ')}
                        </p>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </Card>

        <Card title="Spend by model (this month)">
          {spend.status === 'error' && !spend.data ? (
            <ErrorNotice error={spend.error} onRetry={spend.reload} />
          ) : !spend.data ? (
            <Loading />
          ) : spend.data.byModel.length === 0 ? (
            <Empty>No calls recorded yet.</Empty>
          ) : (
            <ModelChart byModel={spend.data.byModel} />
          )}
        </Card>

        <Card title="Spend by provider (this month)">
          {spend.status === 'error' && !spend.data ? (
            <ErrorNotice error={spend.error} onRetry={spend.reload} />
          ) : !spend.data ? (
            <Loading />
          ) : spend.data.byProvider.length === 0 ? (
            <Empty>No calls recorded yet.</Empty>
          ) : (
            <>
              <ProviderChart byProvider={spend.data.byProvider} />
              <ul className="plain-list small">
                {spend.data.byProvider.map((p) => (
                  <li key={p.provider}>
                    {p.provider}: {formatUsd(p.costUsd)} · {formatInt(p.calls)} calls
                  </li>
                ))}
              </ul>
            </>
          )}
        </Card>

        <Card title="Last 48 hours" className="span-2">
          {spend.status === 'error' && !spend.data ? (
            <ErrorNotice error={spend.error} onRetry={spend.reload} />
          ) : !spend.data ? (
            <Loading />
          ) : spend.data.hourly.length === 0 ? (
            <Empty>No spend in the last 48 hours.</Empty>
          ) : (
            <HourlyChart hourly={spend.data.hourly} now={now} />
          )}
        </Card>
      </div>
    </div>
  );
}
