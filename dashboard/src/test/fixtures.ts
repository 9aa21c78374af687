/** Realistic API responses (docs/api.md), built around the current time. */
import type { ApiKey } from '../api/types';

const HOUR = 3_600_000;

const iso = (t: number) => new Date(t).toISOString();
const hourKey = (t: number) => iso(Math.floor(t / HOUR) * HOUR);

export function budgetResponse(overrides: Record<string, unknown> = {}) {
  return {
    budget: {
      dailyLimitUsd: 50,
      monthlyLimitUsd: 1000,
      dailySoftLimitUsd: 40,
      monthlySoftLimitUsd: 800,
      action: 'block',
    },
    policy: {
      layers: {
        financialLimits: { enabled: true, softCapMode: 'alert', hardCapMode: 'hard_stop' },
        identicalLoop: { enabled: true, consecutive: 4, resetAfterIdleMs: 900_000, mode: 'hard_stop' },
        contextGrowth: {
          enabled: true,
          window: 6,
          minIncrementTokens: 50,
          maxSpreadRatio: 0.1,
          spreadToleranceTokens: 0,
          resetAfterIdleMs: 900_000,
          mode: 'hard_stop',
        },
        rpsBurst: { enabled: true, maxRequests: 10, windowMs: 60_000, mode: 'hard_stop' },
        premiumConcentration: {
          enabled: false,
          maxShare: 0.9,
          windowMs: 3_600_000,
          bucketMs: 60_000,
          minSpendNanos: 5_000_000_000,
          mode: 'hard_stop',
        },
      },
      layerInfo: [
        {
          id: 'financialLimits',
          ordinal: 1,
          name: 'Financial Limits',
          description: 'Daily and monthly soft and hard caps on organization spend.',
        },
        {
          id: 'identicalLoop',
          ordinal: 2,
          name: 'Dumb Loop Detector',
          description: 'Identical request fingerprints in a row.',
        },
        {
          id: 'contextGrowth',
          ordinal: 3,
          name: 'Smart Loop Detector',
          description: 'Linearly growing context per session.',
        },
        {
          id: 'rpsBurst',
          ordinal: 4,
          name: 'RPS Burst Protection',
          description: 'Requests per key in a sliding window.',
        },
        {
          id: 'premiumConcentration',
          ordinal: 5,
          name: 'Premium Model Concentration',
          description: 'Spend share of premium models.',
        },
      ],
    },
    updatedAt: '2026-11-20T10:00:00.000Z',
    spend: { todayUsd: 12.3456, monthUsd: 312.5 },
    remaining: { dailyUsd: 37.6544, monthlyUsd: 687.5 },
    status: 'ok',
    flag: null,
    ...overrides,
  };
}

export function spendResponse(now = Date.now()) {
  const hourly = Array.from({ length: 48 }, (_, i) => {
    const t = now - (47 - i) * HOUR;
    return { hour: hourKey(t), costUsd: 0.2 + (i % 5) * 0.15, calls: 20 + i };
  });
  const minutes = Array.from({ length: 60 }, (_, i) => ({
    minute: iso(Math.floor((now - (59 - i) * 60_000) / 60_000) * 60_000),
    costUsd: 0.01,
  }));
  return {
    todayUsd: 12.3456,
    monthUsd: 312.5,
    byModel: [
      { provider: 'openai', model: 'gpt-4o', costUsd: 180.25, calls: 5120 },
      { provider: 'anthropic', model: 'claude-sonnet-4-5', costUsd: 110.1, calls: 2210 },
      { provider: 'openrouter', model: 'meta-llama/llama-3.1-70b-instruct', costUsd: 22.15, calls: 980 },
    ],
    byProvider: [
      { provider: 'openai', costUsd: 180.25, calls: 5120 },
      { provider: 'anthropic', costUsd: 110.1, calls: 2210 },
      { provider: 'openrouter', costUsd: 22.15, calls: 980 },
    ],
    hourly,
    minutes,
  };
}

/**
 * GET /v1/forecast as the forecast task stores it (lambdas/forecast/tasks.ts): horizons are the spend
 * projected from now to `end`, plus `toDateUsd`; the fan is cumulative month spend per day.
 */
export function forecastResponse(now = Date.now(), withFan = true) {
  const d = new Date(now);
  const dayEnd = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000;
  const monthEnd = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  const fan: { date: string; p50Usd: number; p95Usd: number; p99Usd: number }[] = [];
  for (let t = dayEnd - 1, i = 1; t < monthEnd; t += 86_400_000, i++) {
    const p50 = 312.5 + 10 * i;
    fan.push({ date: iso(t).slice(0, 10), p50Usd: p50, p95Usd: p50 + 4 * i, p99Usd: p50 + 8 * i });
  }
  const last = fan[fan.length - 1] ?? { p50Usd: 322.5, p95Usd: 326.5, p99Usd: 330.5 };
  return {
    computedAt: iso(now - 10 * 60_000),
    forecast: {
      forecast: { now, iterations: 10_000, seed: 7, horizons: [] },
      horizons: [
        {
          horizon: 'restOfDay',
          end: iso(dayEnd),
          meanUsd: 6.2,
          p50Usd: 5.65,
          p95Usd: 12.6,
          p99Usd: 19.05,
          toDateUsd: 12.3456,
          budgets: [
            { budget: 'daily', capUsd: 40, probability: 0.02 },
            { budget: 'daily', capUsd: 50, probability: 0.004 },
          ],
        },
        {
          horizon: 'restOfMonth',
          end: iso(monthEnd),
          meanUsd: last.p50Usd - 312.5 + 5,
          p50Usd: last.p50Usd - 312.5,
          p95Usd: last.p95Usd - 312.5,
          p99Usd: last.p99Usd - 312.5,
          toDateUsd: 312.5,
          budgets: [{ budget: 'monthly', capUsd: 1000, probability: 0.01 }],
        },
        {
          horizon: 'next7Days',
          end: iso(now + 7 * 86_400_000),
          meanUsd: 80,
          p50Usd: 70,
          p95Usd: 120,
          p99Usd: 160,
          toDateUsd: 0,
          budgets: [],
        },
      ],
      ...(withFan ? { fan } : {}),
    },
  };
}

export function flag(now = Date.now(), overrides: Record<string, unknown> = {}) {
  return {
    scope: 'organization',
    keyId: null,
    sessionId: null,
    state: 'SUSPENDED',
    triggerType: 'token_loop_identical',
    observedValue: 4,
    thresholdValue: 4,
    mode: 'hard_stop',
    setAt: iso(now - 10 * 60_000),
    expiresAt: iso(now + 110 * 60_000),
    keysFlagged: 2,
    ...overrides,
  };
}

export const KEYS: ApiKey[] = [
  {
    publicId: 'k3v9x0q2m7za',
    prefix: 'abn_k3v9x0q2m7za',
    name: 'billing-agent production',
    createdAt: '2026-11-01T09:30:00.000Z',
    revokedAt: null,
    scopes: ['proxy', 'ingest', 'read'],
  },
  {
    publicId: 'zr41ldv0p8qe',
    prefix: 'abn_zr41ldv0p8qe',
    name: 'old staging key',
    createdAt: '2026-10-02T12:00:00.000Z',
    revokedAt: '2026-10-20T08:00:00.000Z',
    scopes: ['proxy', 'ingest', 'read'],
  },
];

export function ledgerEntry(i: number, overrides: Record<string, unknown> = {}) {
  return {
    eventId: `evt_${String(i).padStart(4, '0')}`,
    ts: iso(Date.UTC(2026, 10, 22, 13, 0, 0) - i * 60_000),
    source: 'proxy',
    kind: 'call',
    keyId: 'k3v9x0q2m7za',
    provider: 'openai',
    model: 'gpt-4o-mini',
    inputTokens: 1200 + i,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 300,
    reasoningTokens: 0,
    costUsd: 0.000123,
    costSource: 'PROVIDER_REGISTRY',
    clientCostUsd: null,
    providerCostUsd: null,
    estimated: false,
    latencyMs: 812,
    statusCode: 200,
    projectId: 'support-bot',
    environment: 'production',
    featureId: 'triage',
    sessionId: null,
    endpoint: '/v1/chat/completions',
    stream: false,
    verified: true,
    ...overrides,
  };
}

export function trip(overrides: Record<string, unknown> = {}) {
  return {
    at: '2026-11-22T12:40:00.000Z',
    layer: 'rpsBurst',
    triggerType: 'rps_burst',
    observedValue: 14,
    thresholdValue: 10,
    mode: 'hard_stop',
    action: 'SUSPENDED',
    keyId: 'k3v9x0q2m7za',
    sessionId: null,
    message: 'Key k3v9x0q2m7za sent 14 requests in the last minute (limit 10)',
    ...overrides,
  };
}

/** An agent session as GET /v1/sessions lists it (CONTRACTS §4). */
export function session(overrides: Record<string, unknown> = {}) {
  return {
    sessionId: 'agent-7',
    keyId: 'k3v9x0q2m7za',
    calls: 4,
    costUsd: 0.0006,
    firstAt: '2026-11-22T12:36:00.000Z',
    lastAt: '2026-11-22T12:39:00.000Z',
    promptTokens: [
      { ts: '2026-11-22T12:36:00.000Z', tokens: 1000 },
      { ts: '2026-11-22T12:37:00.000Z', tokens: 2000 },
      { ts: '2026-11-22T12:38:00.000Z', tokens: 3000 },
      { ts: '2026-11-22T12:39:00.000Z', tokens: 4000 },
    ],
    repeatedFingerprints: [{ fingerprint: 'sha256:9f2c4e1a7b3d5f60aa', count: 4 }],
    trip: trip({
      layer: 'identicalLoop',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      sessionId: 'agent-7',
      message: '4 identical consecutive requests in session agent-7',
    }),
    flag: {
      scope: 'session',
      keyId: 'k3v9x0q2m7za',
      sessionId: 'agent-7',
      state: 'SUSPENDED',
      triggerType: 'token_loop_identical',
      observedValue: 4,
      thresholdValue: 4,
      mode: 'hard_stop',
      setAt: '2026-11-22T12:40:00.000Z',
      expiresAt: '2026-11-22T14:40:00.000Z',
    },
    ...overrides,
  };
}
