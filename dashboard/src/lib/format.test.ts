import { describe, expect, it } from 'vitest';

import {
  costSourceLabel,
  estimateMarker,
  formatDuration,
  formatUsd,
  formatUsdShort,
  humanize,
  formatTriggerValue,
} from './format';

describe('formatUsd', () => {
  it.each([
    [0, '$0.00'],
    [1234.5, '$1,234.50'],
    [12.3456, '$12.35'],
    [1, '$1.00'],
    [0.5, '$0.50'],
    [0.0153, '$0.0153'],
    [0.01, '$0.01'],
    [0.000123, '$0.000123'],
    [0.0001234567, '$0.000123'],
    [0.002, '$0.002'],
    [0.000000001, '$0.000000001'],
    [1e-12, '<$0.000000001'],
    [-2.5, '-$2.50'],
    [null, '—'],
    [Number.NaN, '—'],
  ])('%s → %s', (value, expected) => {
    expect(formatUsd(value)).toBe(expected);
  });
});

describe('formatUsdShort', () => {
  it.each([
    [0, '$0'],
    [0.004, '$0.004'],
    [0.035, '$0.035'],
    [0.00012, '$0.00012'],
    [0.25, '$0.25'],
    [12.4, '$12'],
    [1200, '$1.2k'],
    [3_400_000, '$3.4M'],
  ])('%s → %s', (value, expected) => expect(formatUsdShort(value)).toBe(expected));
});

describe('labels and markers', () => {
  it.each([
    ['dailySoftCapNanos', 'Daily soft cap'],
    ['resetAfterIdleMs', 'Reset after idle'],
    ['maxRequestsPerMinute', 'Max requests per minute'],
    ['rps_burst', 'Rps burst'],
    ['restOfMonth', 'Rest of month'],
    ['next7Days', 'Next 7 days'],
  ])('humanize(%s) = %s', (key, label) => expect(humanize(key)).toBe(label));

  it.each([
    ['PROVIDER_REPORTED', 'provider-reported'],
    ['ORG_RATE', 'own rate'],
    ['PROVIDER_REGISTRY', 'registry'],
    ['FALLBACK_ECONOMICS', 'fallback'],
  ])('costSourceLabel(%s) = %s', (source, label) => expect(costSourceLabel(source)).toBe(label));

  it('marks estimates est / ~est', () => {
    expect(estimateMarker({ estimated: false, costSource: 'FALLBACK_ECONOMICS' })).toBe('');
    expect(estimateMarker({ estimated: true, costSource: 'PROVIDER_REGISTRY' })).toBe('est');
    expect(estimateMarker({ estimated: true, costSource: 'FALLBACK_ECONOMICS' })).toBe('~est');
  });

  it('formats trigger values in their unit', () => {
    expect(formatTriggerValue('budget_monthly_hard', 1000)).toBe('$1,000.00');
    expect(formatTriggerValue('premium_concentration', 0.934)).toBe('93%');
    expect(formatTriggerValue('rps_burst', 14)).toBe('14');
  });

  it('formats countdowns', () => {
    expect(formatDuration(2 * 3_600_000)).toBe('2h 00m 00s');
    expect(formatDuration(243_000)).toBe('4m 03s');
    expect(formatDuration(-5)).toBe('0s');
  });
});
