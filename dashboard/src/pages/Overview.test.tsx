import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { budgetResponse, flag, forecastResponse, KEYS, spendResponse } from '../test/fixtures';
import { apiError, deferred, mockApi } from '../test/mockApi';
import { renderWithApi, TEST_TOKEN } from '../test/render';
import { formatUsd } from '../lib/format';
import { Overview } from './Overview';

function happyRoutes(extra: Record<string, Parameters<typeof mockApi>[0][string]> = {}) {
  return {
    'GET /v1/budget': { body: budgetResponse() },
    'GET /v1/spend': { body: spendResponse() },
    'GET /v1/forecast': { body: forecastResponse() },
    'GET /v1/flags': { body: { flags: [] } },
    ...extra,
  };
}

describe('Overview', () => {
  it('shows loading states, then spend, budget, burn rate, forecast and the charts', async () => {
    const gate = deferred();
    const api = mockApi({
      ...happyRoutes(),
      'GET /v1/spend': { body: spendResponse(), wait: gate.promise },
    });
    renderWithApi(<Overview />);

    expect(screen.getAllByRole('status').some((s) => /loading/i.test(s.textContent ?? ''))).toBe(true);
    gate.resolve();

    expect(await screen.findByTestId('spend-chart')).toBeInTheDocument();
    expect(await screen.findByTestId('forecast-chart')).toBeInTheDocument();
    expect(screen.getByTestId('model-chart')).toBeInTheDocument();
    // recharts drew real SVG inside the fixed-size containers
    expect(screen.getByTestId('model-chart').querySelector('svg.recharts-surface')).not.toBeNull();
    expect(screen.getByTestId('forecast-chart').querySelector('.recharts-area')).not.toBeNull();

    expect(screen.getAllByText('$12.35').length).toBeGreaterThan(0);
    expect(screen.getByText('$312.50')).toBeInTheDocument();
    // 60 one-cent minutes → $0.60/h
    expect(screen.getByText('$0.60')).toBeInTheDocument();
    // month-end forecast card: the fan's last (cumulative) day
    const forecast = forecastResponse();
    const last = forecast.forecast.fan!.at(-1)!;
    expect(screen.getByText(formatUsd(last.p50Usd), { selector: '.stat-value' })).toBeInTheDocument();
    // horizons: projection from now, the period total (to date + projection) and budget crossings
    const horizons = within(screen.getByRole('list', { name: 'Forecast horizons' }));
    expect(horizons.getByText('Rest of day')).toBeInTheDocument();
    const restOfDay = within(horizons.getByText('Rest of day').closest('li')!);
    expect(restOfDay.getByRole('row', { name: 'From now $5.65 $12.60 $19.05' })).toBeInTheDocument();
    // period total = 12.3456 spent today + the projection
    expect(restOfDay.getByRole('row', { name: 'Period total $18.00 $24.95 $31.40' })).toBeInTheDocument();
    expect(horizons.getByText(/Daily cap \$50\.00 reached: 0\.4%/)).toBeInTheDocument();
    expect(horizons.getByText('Next 7 days')).toBeInTheDocument();
    // today's chart projects the restOfDay total to midnight
    expect(screen.getByTestId('spend-chart')).toHaveAttribute(
      'aria-label',
      expect.stringContaining('projected $18.00 by midnight (P50)'),
    );
    expect(screen.getByRole('meter', { name: /daily spend against the hard cap/i })).toHaveAttribute(
      'aria-valuemax',
      '50',
    );
    expect(screen.getByLabelText(/Spend by model: gpt-4o \$180\.25/)).toBeInTheDocument();
    expect(screen.queryByTestId('flag-banner')).toBeNull();

    for (const call of api.calls) expect(call.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
  });

  it('draws the horizons when the forecast has no daily fan points', async () => {
    mockApi(happyRoutes({ 'GET /v1/forecast': { body: forecastResponse(Date.now(), false) } }));
    renderWithApi(<Overview />);
    const chart = await screen.findByTestId('forecast-chart');
    expect(chart).toHaveAttribute('aria-label', expect.stringMatching(/by horizon/));
    expect(
      within(screen.getByRole('list', { name: 'Forecast horizons' })).getByText('Rest of month'),
    ).toBeInTheDocument();
  });

  it('shows empty states when nothing has been recorded yet', async () => {
    mockApi(
      happyRoutes({
        'GET /v1/spend': {
          body: { todayUsd: 0, monthUsd: 0, byModel: [], byProvider: [], hourly: [], minutes: [] },
        },
        'GET /v1/forecast': { body: { computedAt: null, forecast: null } },
      }),
    );
    renderWithApi(<Overview />);
    expect(await screen.findByText(/No forecast has been computed yet/)).toBeInTheDocument();
    expect(screen.getAllByText('No calls recorded yet.')).toHaveLength(2);
    expect(screen.getByText('No spend in the last 48 hours.')).toBeInTheDocument();
    expect(screen.getByText('No forecast yet.')).toBeInTheDocument();
  });

  it("shows the API's error message when a request fails", async () => {
    mockApi(
      happyRoutes({ 'GET /v1/spend': apiError(503, 'unavailable', 'The aggregate store is unavailable') }),
    );
    renderWithApi(<Overview />);
    const alerts = await screen.findAllByText(/The aggregate store is unavailable/);
    expect(alerts.length).toBeGreaterThan(0);
    expect(screen.getAllByRole('button', { name: 'Retry' }).length).toBeGreaterThan(0);
  });

  it('shows a banner per active kill flag, and Resume posts {apiKey, action: "ACTIVE"} then refreshes', async () => {
    const now = Date.now();
    let flags = [
      flag(now),
      flag(now, {
        state: 'THROTTLED',
        triggerType: 'budget_daily_hard',
        observedValue: 51.2,
        thresholdValue: 50,
      }),
      flag(now, { expiresAt: new Date(now - 1000).toISOString(), triggerType: 'rps_burst' }), // expired: not shown
    ];
    const api = mockApi(
      happyRoutes({
        'GET /v1/flags': () => ({ body: { flags } }),
        'GET /v1/keys': { body: { keys: [KEYS[1], KEYS[0]] } },
        'POST /api/guardrails/enforce': () => {
          flags = [];
          return { body: { success: true, action: 'RESUMED' } };
        },
      }),
    );
    const { user } = renderWithApi(<Overview />);

    const banners = await screen.findAllByTestId('flag-banner');
    expect(banners).toHaveLength(2);
    const first = within(banners[0]!);
    expect(first.getByText('Identical-prompt loop')).toBeInTheDocument();
    expect(first.getByText('token_loop_identical')).toBeInTheDocument();
    expect(first.getByTestId('flag-countdown').textContent).toMatch(/^1h 49m \d\ds$/);
    const second = within(banners[1]!);
    expect(second.getByText('$51.20')).toBeInTheDocument();
    expect(second.getByText('$50.00')).toBeInTheDocument();

    await user.click(first.getByTestId('resume-button'));

    await waitFor(() => expect(screen.queryAllByTestId('flag-banner')).toHaveLength(0));
    const [enforce] = api.callsTo('POST /api/guardrails/enforce');
    // the first non-revoked key of the organization, by prefix
    expect(enforce?.body).toEqual({ apiKey: 'abn_k3v9x0q2m7za', action: 'ACTIVE', scope: 'organization' });
    expect(enforce?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(enforce?.url.href).toBe('http://api.test/api/guardrails/enforce');
    expect(api.callsTo('GET /v1/flags')).toHaveLength(2);
  });

  it('shows why Resume failed', async () => {
    mockApi(
      happyRoutes({
        'GET /v1/flags': { body: { flags: [flag()] } },
        'GET /v1/keys': { body: { keys: [KEYS[0]] } },
        'POST /api/guardrails/enforce': apiError(
          403,
          'forbidden',
          'The key does not belong to your organization',
        ),
      }),
    );
    const { user } = renderWithApi(<Overview />);
    await user.click(await screen.findByTestId('resume-button'));
    expect(await screen.findByText(/The key does not belong to your organization/)).toBeInTheDocument();
    expect(screen.getByTestId('flag-banner')).toBeInTheDocument();
  });
});
