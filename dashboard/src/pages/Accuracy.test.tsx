import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import type { ReconciliationResponse } from '../api/reconciliation';
import { dailyAgreement } from '../lib/accuracy';
import { mockApi } from '../test/mockApi';
import { renderWithApi } from '../test/render';
import { Accuracy } from './Accuracy';

const RESULT: ReconciliationResponse = {
  computedAt: '2026-11-22T06:00:00.000Z',
  window: { from: '2026-11-16', to: '2026-11-22' },
  errors: [{ provider: 'openrouter', message: 'openrouter: /api/v1/activity answered 401' }],
  providers: [
    {
      provider: 'anthropic',
      source: 'provider_report',
      ledgerUsd: 10,
      providerUsd: 12,
      untrackedUsd: 2,
      overcountedUsd: 0,
      agreementPct: 83.33,
      tokenAgreementPct: 90,
      days: [
        {
          date: '2026-11-21',
          model: 'claude-sonnet-4',
          ledgerUsd: 6,
          providerUsd: 6,
          untrackedUsd: 0,
          overcountedUsd: 0,
          ledgerTokens: 1000,
          providerTokens: 1000,
        },
        {
          date: '2026-11-22',
          model: 'claude-sonnet-4',
          ledgerUsd: 4,
          providerUsd: 5,
          untrackedUsd: 1,
          overcountedUsd: 0,
          ledgerTokens: 800,
          providerTokens: 1000,
        },
        {
          date: '2026-11-22',
          ledgerUsd: 0,
          providerUsd: 1,
          untrackedUsd: 1,
          overcountedUsd: 0,
          ledgerTokens: 0,
          providerTokens: 0,
        },
      ],
    },
    {
      provider: 'openai',
      source: 'provider_report',
      ledgerUsd: 3,
      providerUsd: 2.5,
      untrackedUsd: 0,
      overcountedUsd: 0.5,
      agreementPct: 83.33,
      tokenAgreementPct: 100,
      days: [
        {
          date: '2026-11-22',
          model: 'gpt-4o-mini',
          ledgerUsd: 3,
          providerUsd: 2.5,
          untrackedUsd: 0,
          overcountedUsd: 0.5,
          ledgerTokens: 5000,
          providerTokens: 5000,
        },
      ],
    },
  ],
};

const CREDS = {
  providers: [
    { provider: 'openai', configured: true },
    { provider: 'anthropic', configured: true },
    { provider: 'openrouter', configured: false },
  ],
};

describe('Accuracy', () => {
  it('shows ledger vs provider, untracked and overcounted per provider, the errors, and the agreement chart', async () => {
    mockApi({
      'GET /v1/reconciliation': { body: RESULT },
      'GET /v1/reconciliation/credentials': { body: CREDS },
    });
    renderWithApi(<Accuracy />);
    const rows = await screen.findAllByTestId('accuracy-provider');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText('Anthropic')).toBeInTheDocument();
    expect(rows[0]).toHaveTextContent('$10.00');
    expect(rows[0]).toHaveTextContent('$12.00');
    expect(rows[0]).toHaveTextContent('83.33 %');
    expect(rows[1]).toHaveTextContent('$0.50'); // overcounted
    expect(screen.getByRole('alert')).toHaveTextContent(
      'OpenRouter: openrouter: /api/v1/activity answered 401',
    );
    // recharts drew the chart with one line (legend entry) per provider
    const chart = screen.getByTestId('agreement-chart');
    expect(chart.querySelector('svg.recharts-surface')).not.toBeNull();
    expect([...chart.querySelectorAll('.recharts-legend-item-text')].map((e) => e.textContent)).toEqual([
      'Anthropic',
      'OpenAI',
    ]);
    // unattributed spend (a tool fee) is its own row
    expect(
      within(screen.getByTestId('accuracy-days-anthropic')).getByText('not per model (fees)'),
    ).toBeInTheDocument();
    expect(
      within(screen.getByTestId('credential-status')).getByText(/OpenRouter/).parentElement,
    ).toHaveTextContent('not configured');
  });

  it('says so before the first run', async () => {
    mockApi({
      'GET /v1/reconciliation': { body: { providers: [], computedAt: null, window: null, errors: [] } },
      'GET /v1/reconciliation/credentials': { body: CREDS },
    });
    renderWithApi(<Accuracy />);
    expect(await screen.findByText(/Not reconciled yet/)).toBeInTheDocument();
    expect(screen.queryByTestId('agreement-chart')).toBeNull();
  });

  it('reconciles on demand and shows the new result', async () => {
    let current: ReconciliationResponse = { providers: [], computedAt: null, window: null, errors: [] };
    const api = mockApi({
      'GET /v1/reconciliation': () => ({ body: current }),
      'POST /v1/reconciliation/run': () => {
        current = RESULT;
        return { body: RESULT };
      },
      'GET /v1/reconciliation/credentials': { body: CREDS },
    });
    const { user } = renderWithApi(<Accuracy />);
    await screen.findByText(/Not reconciled yet/);
    await user.click(screen.getByRole('button', { name: 'Reconcile now' }));
    expect(await screen.findAllByTestId('accuracy-provider')).toHaveLength(2);
    expect(api.callsTo('POST /v1/reconciliation/run')).toHaveLength(1);
  });

  it('stores an admin key through the credentials route, clears the field and never shows the key', async () => {
    const SECRET = 'sk-ant-admin01-abcdef0123456789';
    let creds = CREDS;
    const api = mockApi({
      'GET /v1/reconciliation': { body: RESULT },
      'GET /v1/reconciliation/credentials': () => ({ body: creds }),
      'PUT /v1/reconciliation/credentials': () => {
        creds = { providers: CREDS.providers.map((p) => ({ ...p, configured: true })) };
        return { body: creds };
      },
    });
    const { user } = renderWithApi(<Accuracy />);
    await screen.findAllByTestId('accuracy-provider');
    await user.selectOptions(screen.getByLabelText('Provider'), 'openrouter');
    await user.type(screen.getByLabelText('Admin key'), SECRET);
    await user.click(screen.getByRole('button', { name: 'Store key' }));
    expect(await screen.findByText(/OpenRouter admin key stored/)).toBeInTheDocument();
    expect(api.callsTo('PUT /v1/reconciliation/credentials')[0]?.body).toEqual({
      provider: 'openrouter',
      adminKey: SECRET,
    });
    expect(screen.getByLabelText('Admin key')).toHaveValue('');
    expect(document.body.textContent).not.toContain(SECRET);
    await waitFor(() =>
      expect(
        within(screen.getByTestId('credential-status')).getByText(/OpenRouter/).parentElement,
      ).toHaveTextContent('OpenRouter: configured'),
    );
  });

  it('removes a stored admin key through DELETE; the provider then reads not configured', async () => {
    let creds = { providers: CREDS.providers.map((p) => ({ ...p, configured: p.provider === 'anthropic' })) };
    const api = mockApi({
      'GET /v1/reconciliation': { body: RESULT },
      'GET /v1/reconciliation/credentials': () => ({ body: creds }),
      'DELETE /v1/reconciliation/credentials/anthropic': () => {
        creds = { providers: CREDS.providers.map((p) => ({ ...p, configured: false })) };
        return { body: creds };
      },
    });
    const { user } = renderWithApi(<Accuracy />);
    await user.click(await screen.findByRole('button', { name: 'Remove the Anthropic admin key' }));
    expect(await screen.findByText('Anthropic admin key removed.')).toBeInTheDocument();
    expect(api.callsTo('DELETE /v1/reconciliation/credentials/anthropic')).toHaveLength(1);
    await waitFor(() =>
      expect(
        within(screen.getByTestId('credential-status')).getByText(/Anthropic/).parentElement,
      ).toHaveTextContent('Anthropic: not configured'),
    );
    expect(screen.queryByRole('button', { name: /^Remove/ })).toBeNull();
  });

  it('marks Bedrock’s figure as token metrics at rates, shows its regions, and removes it through DELETE', async () => {
    const bedrock: ReconciliationResponse['providers'][number] = {
      provider: 'bedrock',
      source: 'token_metrics_at_rates',
      ledgerUsd: 1,
      providerUsd: 1.5,
      untrackedUsd: 0.5,
      overcountedUsd: 0,
      agreementPct: 66.67,
      tokenAgreementPct: 70,
      days: [
        {
          date: '2026-11-22',
          model: 'us.amazon.nova-pro-v1:0',
          ledgerUsd: 1,
          providerUsd: 1.5,
          untrackedUsd: 0.5,
          overcountedUsd: 0,
          ledgerTokens: 700,
          providerTokens: 1_000,
        },
      ],
    };
    let creds = {
      providers: [
        ...CREDS.providers,
        { provider: 'bedrock', configured: true, regions: ['us-east-1', 'eu-west-1'] },
      ],
    };
    const api = mockApi({
      'GET /v1/reconciliation': { body: { ...RESULT, providers: [bedrock] } },
      'GET /v1/reconciliation/credentials': () => ({ body: creds }),
      'DELETE /v1/reconciliation/credentials/bedrock': () => {
        creds = { providers: [...CREDS.providers, { provider: 'bedrock', configured: false, regions: [] }] };
        return { body: creds };
      },
    });
    const { user } = renderWithApi(<Accuracy />);
    const [row] = await screen.findAllByTestId('accuracy-provider');
    expect(row).toHaveTextContent('Amazon Bedrock (CloudWatch token metrics at rates, not an invoice)');
    const status = within(screen.getByTestId('credential-status'));
    expect(status.getByText('Amazon Bedrock').parentElement).toHaveTextContent('us-east-1, eu-west-1');
    await user.click(await screen.findByRole('button', { name: 'Remove the Amazon Bedrock reconciliation' }));
    expect(await screen.findByText('Amazon Bedrock reconciliation removed.')).toBeInTheDocument();
    expect(api.callsTo('DELETE /v1/reconciliation/credentials/bedrock')).toHaveLength(1);
    await waitFor(() =>
      expect(status.getByText('Amazon Bedrock').parentElement).toHaveTextContent('not configured'),
    );
    // No key form option for Bedrock: it has no key.
    expect(within(screen.getByLabelText('Provider')).queryByText(/Bedrock/)).toBeNull();
  });

  it('refuses an empty key without calling the API', async () => {
    const api = mockApi({
      'GET /v1/reconciliation': { body: RESULT },
      'GET /v1/reconciliation/credentials': { body: CREDS },
    });
    const { user } = renderWithApi(<Accuracy />);
    await screen.findAllByTestId('accuracy-provider');
    await user.click(screen.getByRole('button', { name: 'Store key' }));
    expect(await screen.findByText('Enter the admin key.')).toBeInTheDocument();
    expect(api.callsTo('PUT /v1/reconciliation/credentials')).toHaveLength(0);
  });
});

describe('dailyAgreement', () => {
  it('is Σ min / Σ max per day, rows within rounding counted as matched', () => {
    // 2026-11-21: 6 of 6; 2026-11-22: min(4,5) + min(0,1) = 4 of 5 + 1 = 6 → 66.67 %
    expect(dailyAgreement(RESULT.providers[0]!)).toEqual([
      { date: '2026-11-21', pct: 100 },
      { date: '2026-11-22', pct: 66.67 },
    ]);
  });
});
