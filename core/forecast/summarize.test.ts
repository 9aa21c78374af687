import { hourOfWeek, MS_PER_DAY, MS_PER_HOUR } from './calendar';
import { SeededRandom } from './random';
import { simulate } from './simulate';
import { PRIOR_DAY_DISPERSION, summarizeHistory } from './summarize';
import { dayMultipliers, generateCalls, randomProcess } from './synthetic';
import type { CallRecord, HourlyAggregate } from './types';

/** Thursday 2026-04-09 10:30 UTC. */
const NOW = Date.UTC(2026, 3, 9, 10, 30);

/** Exactly `perHour` calls of `cost` nanos in every hour of [from, to). */
function steady(from: number, to: number, perHour: number, cost: number): CallRecord[] {
  const out: CallRecord[] = [];
  for (let h = from; h < to; h += MS_PER_HOUR) {
    for (let i = 0; i < perHour; i++) out.push({ ts: h + i * 1000, costNanos: cost, model: 'gpt-4o' });
  }
  return out;
}

function toHourly(events: CallRecord[]): HourlyAggregate[] {
  const map = new Map<number, HourlyAggregate>();
  for (const e of events) {
    const h = Math.floor(e.ts / MS_PER_HOUR) * MS_PER_HOUR;
    const a = map.get(h) ?? { hourStart: h, calls: 0, costNanos: 0, costSquaresNanos2: 0 };
    a.calls++;
    a.costNanos += e.costNanos;
    a.costSquaresNanos2 = (a.costSquaresNanos2 ?? 0) + e.costNanos * e.costNanos;
    map.set(h, a);
  }
  return [...map.values()];
}

describe('summarizeHistory', () => {
  it('summarizes nothing as zero spend, and the forecast of nothing is zero', () => {
    const summary = summarizeHistory({ events: [] }, { end: NOW });
    expect(summary).toMatchObject({ calls: 0, costNanos: 0, exposureHours: 0, levelRelativeVariance: 0 });
    const f = simulate(summary, { now: NOW, seed: 1, iterations: 100 });
    expect(f.horizons.every((h) => h.p99Nanos === 0 && h.meanNanos === 0)).toBe(true);
  });

  it('reads a steady rate into every hour of the week, and exact cost moments', () => {
    const end = Date.UTC(2026, 3, 9, 10);
    const events = steady(end - 28 * MS_PER_DAY, end, 6, 2_000_000);
    const s = summarizeHistory({ events }, { end });
    for (const mu of s.callsPerHourOfWeek) expect(mu).toBeCloseTo(6, 1);
    expect(s.cost).toMatchObject({ meanNanos: 2_000_000, varianceNanos2: 0, binCalls: [events.length] });
    expect(s.dayDispersion).toBe(0);
    expect(s.models).toEqual([
      { model: 'gpt-4o', calls: events.length, costNanos: events.length * 2_000_000 },
    ]);
  });

  it('gives the same model from calls and from hourly aggregates with squares', () => {
    const rng = new SeededRandom(9);
    const p = randomProcess(rng);
    const events = generateCalls(p, rng, NOW - 28 * MS_PER_DAY, NOW, dayMultipliers(rng, p.dayDispersion));
    const a = summarizeHistory({ events }, { end: NOW });
    const b = summarizeHistory({ hourly: toHourly(events) }, { end: NOW });
    expect(b.callsPerHourOfWeek).toEqual(a.callsPerHourOfWeek);
    expect(b.cost.meanNanos).toBeCloseTo(a.cost.meanNanos, 3);
    expect(b.cost.varianceNanos2 / a.cost.varianceNanos2).toBeCloseTo(1, 6);
    expect(b.dayDispersion).toBeCloseTo(a.dayDispersion, 6);
  });

  it('estimates the per-call variance from hourly aggregates without squares', () => {
    const rng = new SeededRandom(10);
    const p = { ...randomProcess(rng), callsPerHour: 30 };
    const events = generateCalls(p, rng, NOW - 28 * MS_PER_DAY, NOW, dayMultipliers(rng, p.dayDispersion));
    const exact = summarizeHistory({ events }, { end: NOW });
    const hourly = toHourly(events).map(({ costSquaresNanos2: _omit, ...rest }) => rest);
    const estimated = summarizeHistory({ hourly }, { end: NOW });
    expect(estimated.cost.varianceNanos2 / exact.cost.varianceNanos2).toBeGreaterThan(0.5);
    expect(estimated.cost.varianceNanos2 / exact.cost.varianceNanos2).toBeLessThan(2);
  });

  it('finds the weekly shape: weekends quieter than weekdays', () => {
    const rng = new SeededRandom(11);
    const p = { ...randomProcess(rng), callsPerHour: 20, weekendFactor: 0.25, diurnalAmplitude: 0 };
    const events = generateCalls(p, rng, NOW - 28 * MS_PER_DAY, NOW, () => 1);
    const s = summarizeHistory({ events }, { end: NOW });
    const weekday = s.callsPerHourOfWeek.slice(0, 120).reduce((a, b) => a + b, 0) / 120;
    const weekend = s.callsPerHourOfWeek.slice(120).reduce((a, b) => a + b, 0) / 48;
    expect(weekend / weekday).toBeCloseTo(0.25, 1);
  });

  it('estimates the day-to-day dispersion of a known process', () => {
    const rng = new SeededRandom(12);
    const p = { ...randomProcess(rng), callsPerHour: 200, dayDispersion: 0.1 };
    const events = generateCalls(p, rng, NOW - 60 * MS_PER_DAY, NOW, dayMultipliers(rng, 0.1));
    const s = summarizeHistory({ events }, { end: NOW, lookbackDays: 60 });
    expect(s.dayDispersion).toBeGreaterThan(0.05);
    expect(s.dayDispersion).toBeLessThan(0.2);
  });

  it('starts a new organization’s history at its first call, with the prior dispersion', () => {
    const events = steady(NOW - 5 * MS_PER_HOUR, NOW, 3, 1_000_000);
    const s = summarizeHistory({ events }, { end: NOW });
    expect(s.start).toBe(NOW - 5.5 * MS_PER_HOUR);
    expect(s.exposureHours).toBeCloseTo(5.5, 6);
    expect(s.dayDispersion).toBe(PRIOR_DAY_DISPERSION);
    expect(s.levelRelativeVariance).toBeGreaterThan(1);
  });

  it('reports today and this month as of the end', () => {
    const events = steady(Date.UTC(2026, 2, 25), NOW, 1, 1000);
    const s = summarizeHistory({ events }, { end: NOW });
    expect(s.today).toMatchObject({ dayStart: Date.UTC(2026, 3, 9), calls: 11, costNanos: 11_000 });
    expect(s.today.expectedCalls).toBeCloseTo(10.5, 0);
    expect(s.month).toEqual({
      monthStart: Date.UTC(2026, 3, 1),
      costNanos: (8 * 24 + 11) * 1000,
      complete: true,
    });
  });

  it('stays a few KB of JSON whatever the history size', () => {
    const small = summarizeHistory({ events: steady(NOW - 2 * MS_PER_DAY, NOW, 1, 5000) }, { end: NOW });
    const big = summarizeHistory({ events: steady(NOW - 28 * MS_PER_DAY, NOW, 300, 5000) }, { end: NOW });
    expect(JSON.stringify(small).length).toBeLessThan(8000);
    expect(JSON.stringify(big).length).toBeLessThan(8000);
    expect(big.calls).toBe(28 * 24 * 300 + 0);
  });

  it('numbers hours of the week from Monday 00:00 UTC', () => {
    expect(hourOfWeek(Date.UTC(2026, 3, 6, 0))).toBe(0);
    expect(hourOfWeek(Date.UTC(2026, 3, 12, 23))).toBe(167);
  });
});
