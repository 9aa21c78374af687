import fc from 'fast-check';
import { applyEvent, prepareEvent } from './engine';
import {
  correctedFinancialSpend,
  financialBlockState,
  financialLimitsLayer,
  FLAG_TTL_MS,
} from './financial-limits';
import { MS_PER_DAY } from './periods';
import { makeEvent, policyWith, runEngine, runLayer, T0, trippedAt } from './test-support';
import type { GuardrailEvent } from './types';

const USD = 1_000_000_000;
const dayStart = Math.floor(T0 / MS_PER_DAY) * MS_PER_DAY;
const nextDay = dayStart + MS_PER_DAY;
const caps = policyWith({
  financialLimits: {
    dailySoftCapNanos: 8 * USD,
    dailyHardCapNanos: 10 * USD,
    monthlySoftCapNanos: 50 * USD,
    monthlyHardCapNanos: 100 * USD,
  },
});

describe('financial limits (layer 1)', () => {
  it.each([
    {
      name: 'no caps configured: nothing, whatever the spend',
      costs: [100, 100, 100],
      policy: policyWith({}),
      expected: [] as number[],
    },
    { name: 'spend below every cap', costs: [3, 3, 1.99], policy: caps, expected: [] },
    { name: 'soft cap warns once per day', costs: [5, 3, 0.5, 0.5], policy: caps, expected: [2] },
    {
      name: 'hard cap trips on the event that reaches it (≥)',
      costs: [5, 3, 2],
      policy: caps,
      expected: [2, 3],
    },
    {
      name: 'hard cap re-emits on every later event, even free ones',
      costs: [11, 0, 0.01, 0],
      policy: caps,
      expected: [1, 2, 3, 4],
    },
  ])('$name', ({ costs, policy, expected }) => {
    // Prepare
    const events = costs.map((usd, i) => makeEvent({ costNanos: Math.round(usd * USD), ts: T0 + i * 1000 }));
    // Act
    const { verdicts } = runLayer(financialLimitsLayer, events, policy);
    // Assess
    expect(trippedAt(verdicts)).toEqual(expected);
  });

  it('emits soft and hard verdicts with the enforcement fields, in dollars', () => {
    const events = [makeEvent({ costNanos: 8 * USD }), makeEvent({ costNanos: 2 * USD, sessionId: 's1' })];
    const { verdicts } = runLayer(financialLimitsLayer, events, caps);
    expect(verdicts[0]).toEqual([
      expect.objectContaining({
        triggerType: 'budget_daily_soft',
        mode: 'alert',
        action: 'WARN',
        observedValue: 8,
        thresholdValue: 8,
      }),
    ]);
    expect(verdicts[1]).toEqual([
      expect.objectContaining({
        layer: 'financialLimits',
        triggerType: 'budget_daily_hard',
        observedValue: 10,
        thresholdValue: 10,
        mode: 'hard_stop',
        action: 'SUSPENDED',
        scope: 'organization',
        keyId: 'abn_key1',
        sessionId: 's1',
        seq: events[1]?.seq,
      }),
    ]);
  });

  it('resets the daily spend at UTC midnight but keeps the month', () => {
    const events = [
      makeEvent({ costNanos: 9 * USD, ts: nextDay - 1000 }),
      makeEvent({ costNanos: 9 * USD, ts: nextDay + 1000 }),
    ];
    const { state, verdicts } = runLayer(financialLimitsLayer, events, caps);
    expect(verdicts.map((v) => v.map((x) => x.triggerType))).toEqual([
      ['budget_daily_soft'],
      ['budget_daily_soft'],
    ]);
    expect(state).toMatchObject({ daySpendNanos: 9 * USD, monthSpendNanos: 18 * USD });
  });

  it('resets the month on the first of the month (UTC)', () => {
    const monthEnd = Date.UTC(2026, 4, 1);
    const events = [
      makeEvent({ costNanos: 60 * USD, ts: monthEnd - 5000 }),
      makeEvent({ costNanos: 1, ts: monthEnd }),
    ];
    const { state } = runLayer(financialLimitsLayer, events, policyWith({}));
    expect(state.monthSpendNanos).toBe(1);
    expect(state.month).toBe(2026 * 12 + 4);
  });

  it('counts a late event of yesterday toward the month only', () => {
    const events = [
      makeEvent({ costNanos: 1 * USD, ts: nextDay + 10 }),
      makeEvent({ costNanos: 2 * USD, ts: nextDay - 10 }),
    ];
    const { state } = runLayer(financialLimitsLayer, events, caps);
    expect(state).toMatchObject({ daySpendNanos: 1 * USD, monthSpendNanos: 3 * USD });
  });

  it('stops blocking when the cap is raised', () => {
    const events = [makeEvent({ costNanos: 11 * USD }), makeEvent({ costNanos: 0 })];
    const first = runLayer(financialLimitsLayer, events.slice(0, 1), caps);
    const raised = policyWith({ financialLimits: { dailyHardCapNanos: 20 * USD } });
    const second = events[1] as GuardrailEvent;
    const r = financialLimitsLayer.step(first.state, prepareEvent(second, raised, T0), raised, T0);
    expect(r.verdicts).toEqual([]);
  });

  it('keeps counting while disabled, so re-enabling enforces the whole day', () => {
    const disabled = policyWith({ ...caps, financialLimits: { ...caps.financialLimits, enabled: false } });
    const events = [makeEvent({ costNanos: 12 * USD })];
    const { state, verdicts } = runEngine(events, disabled);
    expect(verdicts).toEqual([]);
    expect(state.layers.financialLimits.daySpendNanos).toBe(12 * USD);
  });

  it('a client clock in the future cannot roll the day over', () => {
    // Prepare: the cap is reached; then an event stamped 3 days ahead, processed now
    const first = applyEvent(runEngine([]).state, makeEvent({ costNanos: 11 * USD, ts: T0 }), caps, T0);
    // Act: its time is clamped to now + 5 min, still today
    const r = applyEvent(first.state, makeEvent({ costNanos: 0, ts: T0 + 3 * MS_PER_DAY }), caps, T0);
    // Assess
    expect(r.verdicts.map((v) => v.triggerType)).toContain('budget_daily_hard');
    expect(r.state.layers.financialLimits.day).toBe(first.state.layers.financialLimits.day);
  });
});

describe('financialBlockState', () => {
  const spendState = (usd: number, ts: number) =>
    runEngine([makeEvent({ costNanos: usd * USD, ts })], caps).state;

  it.each([
    { name: 'not blocked below the cap', usd: 9, now: T0, blocked: false, ttl: null },
    {
      name: 'blocked for 2 h when the reset is further away',
      usd: 10,
      now: T0,
      blocked: true,
      ttl: FLAG_TTL_MS.SUSPENDED,
    },
    {
      name: 'blocked until midnight when it is closer than 2 h',
      usd: 10,
      now: nextDay - 1_800_000,
      blocked: true,
      ttl: 1_800_000,
    },
    { name: 'not blocked once the day is over', usd: 10, now: nextDay + 1, blocked: false, ttl: null },
  ])('$name', ({ usd, now, blocked, ttl }) => {
    const state = spendState(usd, Math.min(now, nextDay - 1));
    const b = financialBlockState(state, caps, now);
    expect(b.blocked).toBe(blocked);
    expect(b.flagTtlMs).toBe(ttl);
  });

  it('a monthly block lasts until the first of next month, beyond midnight', () => {
    const now = Date.UTC(2026, 3, 30, 23, 30);
    const state = runEngine([makeEvent({ costNanos: 100 * USD, ts: now })], caps).state;
    const b = financialBlockState(state, caps, now);
    expect(b).toMatchObject({
      blocked: true,
      triggers: ['budget_daily_hard', 'budget_monthly_hard'],
      resetsAt: Date.UTC(2026, 4, 1),
      flagTtlMs: 1_800_000,
    });
    expect(financialBlockState(state, caps, Date.UTC(2026, 4, 1)).blocked).toBe(false);
  });

  it('uses the throttle TTL when the hard cap mode is throttle, and never blocks in alert mode', () => {
    const state = spendState(10, T0);
    const throttle = policyWith({ financialLimits: { ...caps.financialLimits, hardCapMode: 'throttle' } });
    expect(financialBlockState(state, throttle, T0)).toMatchObject({
      action: 'THROTTLED',
      flagTtlMs: FLAG_TTL_MS.THROTTLED,
    });
    const alert = policyWith({ financialLimits: { ...caps.financialLimits, hardCapMode: 'alert' } });
    expect(financialBlockState(state, alert, T0).blocked).toBe(false);
  });

  it('leaks at most the in-flight call per flag expiry: every event after the cap re-trips', () => {
    // Prepare: the cap is reached; then one call per 2 h flag expiry gets through
    const events = [makeEvent({ costNanos: 10 * USD, ts: dayStart + 1000 })];
    for (let i = 1; i <= 5; i++)
      events.push(makeEvent({ costNanos: 0.5 * USD, ts: dayStart + 1000 + i * FLAG_TTL_MS.SUSPENDED }));
    // Act
    const { verdicts } = runEngine(events, caps);
    // Assess: each leaked call re-emits the hard stop (the consumer rewrites the flag)
    expect(verdicts.filter((v) => v.triggerType === 'budget_daily_hard')).toHaveLength(6);
  });
});

describe('correctedFinancialSpend (an admin taking back forged spend)', () => {
  const now = Date.parse('2026-11-26T10:00:00.000Z');
  const day = Math.floor(now / 86_400_000);
  const month = 2026 * 12 + 10;
  const base = {
    day,
    month,
    daySpendNanos: 0,
    monthSpendNanos: 0,
    daySoftAlerted: false,
    monthSoftAlerted: false,
  };

  it('applies a signed amount to the current day and month, never below zero', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1e15 }),
        fc.nat({ max: 1e15 }),
        fc.integer({ min: -2e15, max: 2e15 }),
        (dayNanos, extra, delta) => {
          const state = { ...base, daySpendNanos: dayNanos, monthSpendNanos: dayNanos + extra };
          const after = correctedFinancialSpend(state, delta, now);
          expect(after.daySpendNanos).toBe(Math.max(0, dayNanos + delta));
          expect(after.monthSpendNanos).toBe(Math.max(0, dayNanos + extra + delta));
        },
      ),
    );
    // The boundary: taking back exactly what was counted leaves zero.
    expect(
      correctedFinancialSpend({ ...base, daySpendNanos: 12e9, monthSpendNanos: 12e9 }, -12e9, now),
    ).toMatchObject({
      daySpendNanos: 0,
      monthSpendNanos: 0,
    });
  });

  it('leaves a period layer 1 is no longer counting alone (yesterday’s figure is replaced at the next call)', () => {
    const yesterday = { ...base, day: day - 1, daySpendNanos: 5e9, monthSpendNanos: 9e9 };
    expect(correctedFinancialSpend(yesterday, -5e9, now)).toMatchObject({
      daySpendNanos: 5e9,
      monthSpendNanos: 4e9,
    });
  });
});
