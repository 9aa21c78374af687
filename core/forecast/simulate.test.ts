import { MS_PER_DAY, MS_PER_HOUR } from './calendar';
import { ForecastError } from './errors';
import { simulate } from './simulate';
import { summarizeHistory } from './summarize';
import type { CallRecord, HistorySummary, SimulationOptions } from './types';

/** Thursday 2026-04-09 10:30 UTC. */
const NOW = Date.UTC(2026, 3, 9, 10, 30);
const USD = 1_000_000_000;

/** About 10 calls an hour of ~$0.01 to $0.05, with some day-to-day variation, for 4 weeks. */
function history(): HistorySummary {
  const events: CallRecord[] = [];
  let x = 1;
  const next = () => (x = (x * 48271) % 2147483647) / 2147483647;
  for (let h = NOW - 28 * MS_PER_DAY; h < NOW; h += MS_PER_HOUR) {
    const dayFactor = 0.7 + 0.6 * (((Math.floor(h / MS_PER_DAY) * 7919) % 100) / 100);
    const n = Math.round(10 * dayFactor * (0.5 + next()));
    for (let i = 0; i < n; i++)
      events.push({ ts: h + i * 60_000, costNanos: Math.round(10_000_000 + 40_000_000 * next()) });
  }
  return summarizeHistory({ events }, { end: NOW });
}

const summary = history();
const run = (options: Partial<SimulationOptions> = {}) =>
  simulate(summary, { now: NOW, seed: 7, iterations: 4000, ...options });

describe('simulate', () => {
  it('is reproducible for a seed', () => {
    expect(run()).toEqual(run());
    expect(run({ seed: 8 }).horizons[3]?.p50Nanos).not.toBe(run().horizons[3]?.p50Nanos);
  });

  it('projects the four horizons with ordered percentiles in integer nanos', () => {
    const f = run();
    expect(f.horizons.map((h) => [h.horizon, h.end])).toEqual([
      ['restOfDay', Date.UTC(2026, 3, 10)],
      ['restOfMonth', Date.UTC(2026, 4, 1)],
      ['next7Days', NOW + 7 * MS_PER_DAY],
      ['next30Days', NOW + 30 * MS_PER_DAY],
    ]);
    for (const h of f.horizons) {
      expect(h.p50Nanos).toBeLessThanOrEqual(h.p95Nanos);
      expect(h.p95Nanos).toBeLessThanOrEqual(h.p99Nanos);
      for (const v of [h.meanNanos, h.p50Nanos, h.p95Nanos, h.p99Nanos])
        expect(Number.isSafeInteger(v)).toBe(true);
    }
  });

  it('centres the projection on the history’s rate: ~10 calls/h × $0.03 ≈ $7.20 a day', () => {
    const f = run();
    const week = f.horizons.find((h) => h.horizon === 'next7Days');
    expect((week?.meanNanos ?? 0) / (7 * 7.2 * USD)).toBeGreaterThan(0.85);
    expect((week?.meanNanos ?? 0) / (7 * 7.2 * USD)).toBeLessThan(1.15);
    expect(f.model.callsPerDay).toBeGreaterThan(200);
    expect(f.iterations).toBe(4000);
  });

  it('reports spend to date for the calendar horizons', () => {
    const f = run({ spentTodayNanos: 3 * USD, spentThisMonthNanos: 50 * USD });
    expect(f.horizons.map((h) => h.toDateNanos)).toEqual([3 * USD, 50 * USD, 0, 0]);
    const defaults = run();
    expect(defaults.horizons[0]?.toDateNanos).toBe(summary.today.costNanos);
    expect(defaults.horizons[1]?.toDateNanos).toBe(summary.month.costNanos);
  });

  it.each([
    {
      name: 'a cap already reached today is crossed for certain',
      budgets: { dailyNanos: 1 },
      horizon: 0,
      expected: [1, 1],
    },
    {
      name: 'an unreachable cap is never crossed',
      budgets: { dailyNanos: 10_000 * USD, monthlyNanos: 1e6 * USD },
      horizon: 3,
      expected: [0, 0],
    },
  ])('$name', ({ budgets, horizon, expected }) => {
    const f = run({ budgets });
    expect(f.horizons[horizon]?.budgets.map((b) => b.probability)).toEqual(
      expected.slice(0, f.horizons[horizon]?.budgets.length),
    );
  });

  it('gives a probability between 0 and 1 for a cap near the typical day, growing with the horizon', () => {
    const f = run({ budgets: { dailyNanos: 8 * USD, monthlyNanos: 150 * USD } });
    const daily = f.horizons.map((h) => h.budgets.find((b) => b.budget === 'daily')?.probability ?? -1);
    expect(daily[2]).toBeGreaterThan(0.05);
    expect(daily[2]).toBeLessThan(1);
    expect(daily[3]).toBeGreaterThanOrEqual(daily[2] as number);
    const monthly = f.horizons[1]?.budgets.find((b) => b.budget === 'monthly');
    expect(monthly?.capNanos).toBe(150 * USD);
  });

  it('runs only the horizons asked for', () => {
    expect(run({ horizons: ['next7Days'] }).horizons.map((h) => h.horizon)).toEqual(['next7Days']);
  });

  it.each([
    { name: 'zero iterations', options: { iterations: 0 } },
    { name: 'an unknown horizon', options: { horizons: ['nextYear' as never] } },
    { name: 'a non-finite now', options: { now: Number.NaN } },
    { name: 'a negative budget', options: { budgets: { dailyNanos: -1 } } },
  ])('rejects $name', ({ options }) => {
    expect(() => run(options)).toThrow(ForecastError);
  });

  it('rejects something that is not a summary', () => {
    expect(() => simulate({} as HistorySummary, { now: NOW, seed: 1 })).toThrow(ForecastError);
  });
});
