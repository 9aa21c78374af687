import { describe, expect, it } from 'vitest';

import { activeFlags, averageHourlyRate, bucketTime, lastHourRate, todayCumulative } from './spend';

const NOW = Date.parse('2026-11-22T03:30:00Z');

describe('spend helpers', () => {
  it('reads short and full bucket keys', () => {
    expect(bucketTime('2026-11-22T13')).toBe(Date.parse('2026-11-22T13:00:00Z'));
    expect(bucketTime('2026-11-22T13:05')).toBe(Date.parse('2026-11-22T13:05:00Z'));
    expect(bucketTime('2026-11-22T13:00:00.000Z')).toBe(Date.parse('2026-11-22T13:00:00Z'));
  });

  it('burn rate of the last 60 minutes ignores older minutes', () => {
    const minutes = [
      { minute: '2026-11-22T02:30', costUsd: 5 }, // exactly an hour ago: out
      { minute: '2026-11-22T02:31', costUsd: 0.5 },
      { minute: '2026-11-22T03:30', costUsd: 0.25 },
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

  it("builds today's cumulative curve in UTC hours", () => {
    const hourly = [
      { hour: '2026-11-21T23', costUsd: 9, calls: 1 },
      { hour: '2026-11-22T00', costUsd: 1, calls: 1 },
      { hour: '2026-11-22T02', costUsd: 2, calls: 1 },
    ];
    expect(todayCumulative(hourly, NOW, 3)).toEqual([
      { hour: '00:00', cumulativeUsd: 1, hourUsd: 1 },
      { hour: '01:00', cumulativeUsd: 1, hourUsd: 0 },
      { hour: '02:00', cumulativeUsd: 3, hourUsd: 2 },
      { hour: '03:00', cumulativeUsd: 3, hourUsd: 0 },
    ]);
  });

  it('keeps only flags that have not expired (TTL deletion is lazy)', () => {
    const base = { state: 'SUSPENDED', triggerType: 'x', observedValue: 1, thresholdValue: 1, mode: 'hard_stop', setAt: '', keysFlagged: 1 };
    const flags = [
      { ...base, expiresAt: '2026-11-22T03:29:59Z' },
      { ...base, expiresAt: '2026-11-22T05:30:00Z' },
    ];
    expect(activeFlags(flags, NOW)).toEqual([flags[1]]);
  });
});
