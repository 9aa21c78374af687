import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { budgetResponse, trip } from '../test/fixtures';
import { apiError, mockApi } from '../test/mockApi';
import { renderWithApi } from '../test/render';
import { Guardrails } from './Guardrails';

const layersOf = (body: unknown) =>
  (body as { policy: { layers: Record<string, Record<string, unknown>> } }).policy.layers;

describe('Guardrails', () => {
  it('renders the five layers in order with a labelled control per policy field, and the recent trips', async () => {
    mockApi({
      'GET /v1/flags': { body: { flags: [] } },
      'GET /v1/budget': { body: budgetResponse() },
      'GET /v1/guardrails/trips': {
        body: {
          trips: [
            trip(),
            trip({
              layer: 'financialLimits',
              triggerType: 'budget_daily_soft',
              observedValue: 40.02,
              thresholdValue: 40,
              mode: 'alert',
              action: 'WARN',
              message: 'Daily soft cap reached',
            }),
          ],
        },
      },
    });
    renderWithApi(<Guardrails />);
    expect(screen.getByText('Loading policy…')).toBeInTheDocument();

    const legends = (await screen.findAllByRole('group')).map((g) => g.querySelector('legend')?.textContent);
    expect(legends).toEqual([
      '1 · Financial Limits',
      '2 · Dumb Loop Detector',
      '3 · Smart Loop Detector',
      '4 · RPS Burst Protection',
      '5 · Premium Model Concentration',
    ]);
    const financial = within(screen.getByRole('group', { name: '1 · Financial Limits' }));
    expect(financial.getByLabelText('Enabled')).toBeChecked();
    expect(financial.getByLabelText('Soft cap mode')).toHaveValue('alert');
    expect(financial.getByLabelText('Hard cap mode')).toHaveValue('hard_stop');
    expect(financial.getByRole('link', { name: 'Budgets' })).toHaveAttribute('href', '#/budgets');
    expect(
      financial.getByText('Daily and monthly soft and hard caps on organization spend.'),
    ).toBeInTheDocument();
    const loop = within(screen.getByRole('group', { name: '2 · Dumb Loop Detector' }));
    expect(loop.getByLabelText('Consecutive')).toHaveValue(4);
    expect(loop.getByLabelText('Reset after idle (ms)')).toHaveValue(900000);
    expect(loop.getByLabelText('Mode')).toHaveValue('hard_stop');
    const premium = within(screen.getByRole('group', { name: '5 · Premium Model Concentration' }));
    expect(premium.getByLabelText('Enabled')).not.toBeChecked();
    expect(premium.getByLabelText('Min spend (USD)')).toHaveValue(5);
    expect(premium.getByLabelText('Max share')).toHaveValue(0.9);

    const rows = await screen.findAllByTestId('trip-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText('RPS Burst Protection')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('14')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('$40.02')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('WARN')).toBeInTheDocument();
  });

  it('saves the edited policy with PUT /v1/budget {policy: {layers}}, money back in nano-USD', async () => {
    const api = mockApi({
      'GET /v1/flags': { body: { flags: [] } },
      'GET /v1/budget': { body: budgetResponse() },
      'GET /v1/guardrails/trips': { body: { trips: [] } },
      'PUT /v1/budget': (call) => ({
        body: { ...budgetResponse(), policy: (call.body as { policy: unknown }).policy },
      }),
    });
    const { user } = renderWithApi(<Guardrails />);
    const loop = within(await screen.findByRole('group', { name: '2 · Dumb Loop Detector' }));
    await user.clear(loop.getByLabelText('Consecutive'));
    await user.type(loop.getByLabelText('Consecutive'), '6');
    await user.selectOptions(loop.getByLabelText('Mode'), 'throttle');
    const premium = within(screen.getByRole('group', { name: '5 · Premium Model Concentration' }));
    await user.clear(premium.getByLabelText('Min spend (USD)'));
    await user.type(premium.getByLabelText('Min spend (USD)'), '7.5');
    await user.click(premium.getByLabelText('Enabled'));
    await user.click(screen.getByRole('button', { name: 'Save policy' }));

    expect(await screen.findByText('Policy saved.')).toBeInTheDocument();
    const [put] = api.callsTo('PUT /v1/budget');
    // only {policy: {layers}}: the API refuses other members (layerInfo is read-only)
    expect(Object.keys(put?.body as object)).toEqual(['policy']);
    expect(Object.keys((put?.body as { policy: object }).policy)).toEqual(['layers']);
    const layers = layersOf(put?.body);
    expect(layers.identicalLoop).toEqual({
      enabled: true,
      consecutive: 6,
      resetAfterIdleMs: 900_000,
      mode: 'throttle',
    });
    expect(layers.premiumConcentration).toMatchObject({
      enabled: true,
      minSpendNanos: 7_500_000_000,
      maxShare: 0.9,
    });
    expect(layers.financialLimits).toEqual({ enabled: true, softCapMode: 'alert', hardCapMode: 'hard_stop' });
    expect(layers.contextGrowth).toEqual(layersOf(budgetResponse()).contextGrowth);
  });

  it('rejects negative thresholds before calling the API', async () => {
    const api = mockApi({
      'GET /v1/flags': { body: { flags: [] } },
      'GET /v1/budget': { body: budgetResponse() },
      'GET /v1/guardrails/trips': { body: { trips: [] } },
    });
    const { user } = renderWithApi(<Guardrails />);
    const burst = within(await screen.findByRole('group', { name: '4 · RPS Burst Protection' }));
    await user.clear(burst.getByLabelText('Max requests'));
    await user.type(burst.getByLabelText('Max requests'), '-3');
    await user.click(screen.getByRole('button', { name: 'Save policy' }));
    expect(burst.getByText('Must not be negative')).toBeInTheDocument();
    expect(burst.getByLabelText('Max requests')).toHaveAttribute('aria-invalid', 'true');
    expect(api.callsTo('PUT /v1/budget')).toHaveLength(0);
  });

  it("shows the API's 400 problems next to the fields they name", async () => {
    mockApi({
      'GET /v1/flags': { body: { flags: [] } },
      'GET /v1/budget': { body: budgetResponse() },
      'GET /v1/guardrails/trips': { body: { trips: [] } },
      'PUT /v1/budget': apiError(400, 'invalid_request', 'The policy is not valid', [
        { path: 'policy.layers.identicalLoop.consecutive', message: 'Too small: expected number to be >=2' },
        { path: 'policy.version', message: 'Unknown policy version' },
      ]),
    });
    const { user } = renderWithApi(<Guardrails />);
    const loop = within(await screen.findByRole('group', { name: '2 · Dumb Loop Detector' }));
    await user.clear(loop.getByLabelText('Consecutive'));
    await user.type(loop.getByLabelText('Consecutive'), '1');
    await user.click(screen.getByRole('button', { name: 'Save policy' }));

    expect(await loop.findByText('Too small: expected number to be >=2')).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('The policy is not valid');
    expect(screen.getByRole('list', { name: 'Problems' })).toHaveTextContent(
      'policy.version: Unknown policy version',
    );
  });

  it('lists the active flags with their scope; Resume of a session flag clears that session only', async () => {
    let flags: unknown[] = [
      {
        scope: 'session',
        keyId: 'k3v9x0q2m7za',
        sessionId: 'agent-7',
        state: 'SUSPENDED',
        triggerType: 'token_loop_identical',
        observedValue: 4,
        thresholdValue: 4,
        mode: 'hard_stop',
        setAt: new Date().toISOString(),
        expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      },
    ];
    const api = mockApi({
      'GET /v1/flags': () => ({ body: { flags } }),
      'GET /v1/budget': { body: budgetResponse() },
      'GET /v1/guardrails/trips': { body: { trips: [] } },
      'POST /api/guardrails/enforce': () => {
        flags = [];
        return { body: { success: true, action: 'RESUMED', scope: 'session' } };
      },
    });
    const { user } = renderWithApi(<Guardrails />);
    const banner = within(await screen.findByTestId('flag-banner'));
    expect(banner.getByTestId('flag-scope')).toHaveTextContent('Session agent-7 of key k3v9x0q2m7za');
    await user.click(banner.getByTestId('resume-button'));
    await waitFor(() => expect(screen.queryByTestId('flag-banner')).toBeNull());
    expect(api.callsTo('POST /api/guardrails/enforce')[0]?.body).toEqual({
      apiKey: 'abn_k3v9x0q2m7za',
      action: 'ACTIVE',
      scope: 'session',
      keyId: 'k3v9x0q2m7za',
      sessionId: 'agent-7',
    });
    // A scoped flag names its own key: no need to look the organization's keys up.
    expect(api.callsTo('GET /v1/keys')).toHaveLength(0);
  });

  it('shows empty and error states', async () => {
    mockApi({
      'GET /v1/flags': { body: { flags: [] } },
      'GET /v1/budget': apiError(500, 'internal', 'Internal error (request id 7f3a)'),
      'GET /v1/guardrails/trips': { body: { trips: [] } },
    });
    renderWithApi(<Guardrails />);
    expect(await screen.findByText(/No guardrail has tripped/)).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent('Internal error (request id 7f3a)'),
    );
  });
});
