import { describe, expect, it } from 'vitest';

import type { KillFlag } from '../api/types';
import {
  activeFlags,
  averageHourlyRate,
  bucketTime,
  endOfDayHorizon,
  lastHourRate,
  todayCurve,
} from './spend';

const NOW = Date.parse('2026-11-22T03:30:00Z');

describe('spend helpers', () => {
  it('reads short and full bucket keys', () => {
    expect(bucketTime('2026-11-22T13')).toBe(Date.parse('2026-11-22T13:00:00Z'));
    expect(bucketTime('2026-11-22T13:05')).toBe(Date.parse('2026-11-22T13:05:00Z'));
    expect(bucketTime('2026-11-22T13:00:00.000Z')).toBe(Date.parse('2026-11-22T13:00:00Z'));
  });

  it('burn rate of the last 60 minutes ignores older minutes', () => {
    const minutes = [
      { minute: '2026-11-22T02:30', costUsd: 5, calls: 1 }, // exactly an hour ago: out
      { minute: '2026-11-22T02:31', costUsd: 0.5, calls: 1 },
      { minute: '2026-11-22T03:30', costUsd: 0.25, calls: 1 },
    ];
    expect(lastHourRate(minutes, NOW)).toBeCloseTo(0.75);
  });

  it('average hourly rate counts the partial current hour', () => {
    const hourly = [
      { hour: '2026-11-21T20', costUsd: 100, calls: 1 }, // outside 6 h
      { hour: '2026-11-21T22', costUsd: 3, calls: 1 },
      { hour: '2026-11-22T03', costUsd: 2.5, calls: 1 },
    ];
    // window starts 2026-11-21T22:00, 5.5 h elapsed
    expect(averageHourlyRate(hourly, NOW, 6)).toBeCloseTo(5.5 / 5.5);
  });

  it("builds today's curve in UTC hours: spend before each hour, now, then the projection to midnight", () => {
    const hourly = [
      { hour: '2026-11-21T23', costUsd: 9, calls: 1 },
      { hour: '2026-11-22T00', costUsd: 1, calls: 1 },
      { hour: '2026-11-22T02', costUsd: 2, calls: 1 },
      { hour: '2026-11-22T03', costUsd: 0.5, calls: 1 },
    ];
    expect(todayCurve(hourly, NOW, 3.5)).toEqual([
      { t: 0, actualUsd: 0 },
      { t: 1, actualUsd: 1 },
      { t: 2, actualUsd: 1 },
      { t: 3, actualUsd: 3 },
      { t: 3.5, actualUsd: 3.5 },
    ]);
    const projected = todayCurve(hourly, NOW, 3.5, { p50Usd: 20, p95Usd: 26 });
    expect(projected.slice(-2)).toEqual([
      { t: 3.5, actualUsd: 3.5, projectedUsd: 3.5, band: [3.5, 3.5] },
      { t: 24, projectedUsd: 20, band: [20, 26] },
    ]);
  });

  it('finds the end-of-day horizon by its end time, else by name', () => {
    const h = (name: string, endsAt: string | null) => ({
      name,
      endsAt,
      p50Usd: 1,
      p95Usd: 2,
      p99Usd: 3,
      meanUsd: null,
      toDateUsd: 0,
      budgets: [],
    });
    expect(
      endOfDayHorizon([h('endOfMonth', '2026-11-30T23:59:59Z'), h('next', '2026-11-23T00:00:00Z')], NOW)
        ?.name,
    ).toBe('next');
    expect(endOfDayHorizon([h('restOfDay', null)], NOW)?.name).toBe('restOfDay');
    expect(endOfDayHorizon([h('endOfMonth', null)], NOW)).toBeUndefined();
  });

  it('keeps only flags that have not expired (TTL deletion is lazy)', () => {
    const base: Omit<KillFlag, 'expiresAt'> = {
      scope: 'organization',
      keyId: null,
      sessionId: null,
      state: 'SUSPENDED',
      triggerType: 'x',
      observedValue: 1,
      thresholdValue: 1,
      mode: 'hard_stop',
      setAt: '',
      keysFlagged: 1,
    };
    const flags: KillFlag[] = [
      { ...base, expiresAt: '2026-11-22T03:29:59Z' },
      { ...base, expiresAt: '2026-11-22T05:30:00Z' },
    ];
    expect(activeFlags(flags, NOW)).toEqual([flags[1]]);
  });
});
