import { describe, expect, it, vi } from 'vitest';

import { apiError, mockApi } from '../test/mockApi';
import {
  ApiError,
  createApiClient,
  normalizeAdmission,
  normalizeBudget,
  normalizeForecast,
  normalizeLedgerEntry,
} from './client';

describe('API client', () => {
  it('sends the bearer token, JSON bodies and query strings to apiUrl', async () => {
    const api = mockApi({
      'POST /v1/keys': { status: 201, body: { key: { publicId: 'p' }, apiKey: 'abn_p_secret' } },
      'GET /v1/guardrails/trips': { body: { trips: [] } },
    });
    const client = createApiClient({ apiUrl: 'https://api.example.com/', getToken: () => 'tok' });
    await client.createKey('ci');
    await client.getTrips(20);
    const [create, trips] = api.calls;
    expect(create?.url.href).toBe('https://api.example.com/v1/keys');
    expect(create?.headers).toMatchObject({
      authorization: 'Bearer tok',
      'content-type': 'application/json',
    });
    expect(create?.body).toEqual({ name: 'ci' });
    expect(trips?.url.search).toBe('?limit=20');
  });

  it('turns error bodies into ApiError with code, message and problems', async () => {
    mockApi({
      'PUT /v1/budget': apiError(400, 'invalid_request', 'Invalid budget', [
        { path: 'budget.action', message: 'Invalid option' },
      ]),
    });
    const client = createApiClient({ apiUrl: '', getToken: () => 'tok' });
    const failure = client.putBudget({});
    await expect(failure).rejects.toBeInstanceOf(ApiError);
    await expect(failure).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      message: 'Invalid budget',
      problems: [{ path: 'budget.action', message: 'Invalid option' }],
    });
  });

  it('reports a non-JSON error and an unreachable API readably', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway' })),
    );
    const client = createApiClient({ apiUrl: 'http://api.test', getToken: () => 'tok' });
    await expect(client.getSpend()).rejects.toMatchObject({ status: 502, message: 'HTTP 502 Bad Gateway' });

    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    );
    await expect(client.getSpend()).rejects.toMatchObject({
      status: 0,
      message: 'Could not reach the API at http://api.test: Failed to fetch',
    });
  });

  it('retries once after a 401 when onUnauthorized finds a fresh token', async () => {
    let token = 'old';
    const api = mockApi({
      'GET /v1/flags': (call) =>
        call.headers.authorization === 'Bearer new'
          ? { body: { flags: [] } }
          : apiError(401, 'unauthorized', 'Token expired'),
    });
    const onUnauthorized = vi.fn(async () => {
      token = 'new';
      return true;
    });
    const client = createApiClient({ apiUrl: '', getToken: () => token, onUnauthorized });
    await expect(client.getFlags()).resolves.toEqual([]);
    expect(onUnauthorized).toHaveBeenCalledTimes(1);
    expect(api.calls.map((c) => c.headers.authorization)).toEqual(['Bearer old', 'Bearer new']);
  });
});

describe('normalizers', () => {
  it('reads ledger costs in USD or nano-USD, and the spec token names', () => {
    expect(normalizeLedgerEntry({ costNanos: 123_000, inputTokens: 5 })).toMatchObject({
      costUsd: 0.000123,
      inputTokens: 5,
    });
    expect(normalizeLedgerEntry({ costUsd: 0.5, costNanos: 1 })).toMatchObject({ costUsd: 0.5 });
    expect(normalizeLedgerEntry({ promptTokens: 7, completionTokens: 3, timestamp: 't' })).toMatchObject({
      inputTokens: 7,
      outputTokens: 3,
      ts: 't',
      estimated: false,
    });
    expect(
      normalizeLedgerEntry({ cacheReadTokens: 10, cacheWrite5mTokens: 2, cacheWrite1hTokens: 1 }).cacheTokens,
    ).toBe(13);
  });

  it('reads the stored forecast view: horizons with toDateUsd and budgets, and the fan', () => {
    const read = normalizeForecast({
      computedAt: '2026-11-22T03:44:56.331Z',
      forecast: {
        forecast: { now: 1, iterations: 10000 },
        horizons: [
          {
            horizon: 'restOfMonth',
            end: '2026-12-01T00:00:00.000Z',
            meanUsd: 17.2,
            p50Usd: 0,
            p95Usd: 88,
            p99Usd: 376.7,
            toDateUsd: 0.3184,
            budgets: [{ budget: 'monthly', capUsd: 20, probability: 0.3 }],
          },
        ],
        fan: [{ date: '2026-11-22', p50Usd: 0.3184, p95Usd: 8.7, p99Usd: 36.3 }],
      },
    });
    expect(read).toEqual({
      computedAt: '2026-11-22T03:44:56.331Z',
      horizons: [
        {
          name: 'restOfMonth',
          endsAt: '2026-12-01T00:00:00.000Z',
          p50Usd: 0,
          p95Usd: 88,
          p99Usd: 376.7,
          meanUsd: 17.2,
          toDateUsd: 0.3184,
          budgets: [{ budget: 'monthly', capUsd: 20, probability: 0.3 }],
        },
      ],
      daily: [{ date: '2026-11-22', p50Usd: 0.3184, p95Usd: 8.7, p99Usd: 36.3 }],
    });
  });

  it('reads "no forecast yet" and horizons keyed by name', () => {
    expect(normalizeForecast({ computedAt: null, forecast: null })).toEqual({
      computedAt: null,
      horizons: [],
      daily: [],
    });
    expect(
      normalizeForecast({ forecast: { horizons: { restOfDay: { p50Usd: 1, p95Usd: 2, p99Usd: 3 } } } })
        .horizons,
    ).toEqual([
      {
        name: 'restOfDay',
        endsAt: null,
        p50Usd: 1,
        p95Usd: 2,
        p99Usd: 3,
        meanUsd: null,
        toDateUsd: 0,
        budgets: [],
      },
    ]);
  });

  it('reads a budget record: absent and null caps are no cap, deferred billing only when true', () => {
    expect(
      normalizeBudget({ dailyLimitUsd: 5, monthlyLimitUsd: 100, dailySoftLimitUsd: null, action: 'warn' }),
    ).toEqual({
      dailySoftLimitUsd: null,
      dailyLimitUsd: 5,
      monthlySoftLimitUsd: null,
      monthlyLimitUsd: 100,
      action: 'warn',
      allowDeferredBilling: false,
    });
    expect(normalizeBudget(undefined).action).toBe('block');
    expect(normalizeBudget({ action: 'block', allowDeferredBilling: true }).allowDeferredBilling).toBe(true);
    expect(normalizeBudget({ action: 'block', allowDeferredBilling: 'yes' }).allowDeferredBilling).toBe(
      false,
    );
  });
});

describe('normalizeAdmission', () => {
  it('reads the panel of CONTRACTS §3 (both periods), and null when the API sends none or half of one', () => {
    const day = {
      capUsd: 0.3,
      settledUsd: 0.21,
      reservedUsd: 0.012,
      outstandingReservations: 2,
      leasedUsd: 0.03,
      holders: 1,
    };
    expect(normalizeAdmission({ day, month: { ...day, capUsd: null } })).toEqual({
      day,
      month: { ...day, capUsd: null },
    });
    expect(normalizeAdmission({ day })).toBeNull();
    expect(normalizeAdmission(undefined)).toBeNull();
    expect(normalizeAdmission({ day: { capUsd: 1 } })).toBeNull();
  });
});

describe('getSessions and createKey', () => {
  it('asks for the window and sends scopes only when given', async () => {
    const api = mockApi({
      'GET /v1/sessions': { body: { sessions: [], hours: 6, truncated: false } },
      'POST /v1/keys': { status: 201, body: { key: {}, apiKey: 'x' } },
    });
    const client = createApiClient({ apiUrl: 'http://api.test', getToken: () => 't' });
    expect(await client.getSessions(6)).toEqual({ sessions: [], hours: 6, truncated: false });
    expect(api.callsTo('GET /v1/sessions')[0]?.query).toEqual({ hours: '6' });
    await client.createKey('a');
    await client.createKey('b', ['proxy']);
    expect(api.callsTo('POST /v1/keys').map((c) => c.body)).toEqual([
      { name: 'a' },
      { name: 'b', scopes: ['proxy'] },
    ]);
  });
});
