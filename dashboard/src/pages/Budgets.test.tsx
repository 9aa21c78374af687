import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { budgetResponse } from '../test/fixtures';
import { apiError, deferred, mockApi } from '../test/mockApi';
import { renderWithApi } from '../test/render';
import { Budgets } from './Budgets';

describe('Budgets', () => {
  it('loads the caps, the action and the spend against them', async () => {
    const gate = deferred();
    mockApi({ 'GET /v1/budget': { body: budgetResponse(), wait: gate.promise } });
    renderWithApi(<Budgets />);
    expect(screen.getByText('Loading budget…')).toBeInTheDocument();
    gate.resolve();

    expect(await screen.findByLabelText('Daily soft cap (USD)')).toHaveValue(40);
    expect(screen.getByLabelText('Daily hard cap (USD)')).toHaveValue(50);
    expect(screen.getByLabelText('Monthly soft cap (USD)')).toHaveValue(800);
    expect(screen.getByLabelText('Monthly hard cap (USD)')).toHaveValue(1000);
    expect(screen.getByLabelText('Action when a cap is reached (SDK budget)')).toHaveValue('block');
    expect(screen.getByText('$37.65 remaining')).toBeInTheDocument();
    expect(screen.getByText('$687.50 remaining')).toBeInTheDocument();
  });

  it('shows admitted (settled + reserved) against the hard cap and the outstanding reservations', async () => {
    mockApi({
      'GET /v1/budget': {
        body: budgetResponse({
          admission: {
            day: {
              capUsd: 0.3,
              settledUsd: 0.21,
              reservedUsd: 0.012,
              outstandingReservations: 2,
              leasedUsd: 0.03,
              holders: 1,
            },
            month: {
              capUsd: null,
              settledUsd: 4.5,
              reservedUsd: 0,
              outstandingReservations: 0,
              leasedUsd: 0,
              holders: 0,
            },
          },
        }),
      },
    });
    renderWithApi(<Budgets />);
    const today = within(await screen.findByTestId('admission-today'));
    expect(today.getByTestId('admitted')).toHaveTextContent('$0.222');
    expect(today.getByTestId('settled')).toHaveTextContent('$0.21');
    expect(today.getByTestId('reserved')).toHaveTextContent('$0.012 · 2 reservations');
    expect(today.getByTestId('leased')).toHaveTextContent('$0.03 · 1 holder');
    expect(today.getByRole('meter')).toHaveAttribute('aria-label', 'Today: $0.222 admitted of $0.30 cap');
    const month = within(screen.getByTestId('admission-month'));
    expect(month.getByText('None')).toBeInTheDocument();
    expect(month.queryByRole('meter')).toBeNull();
  });

  it('renders no admission panel when the API reports none', async () => {
    mockApi({ 'GET /v1/budget': { body: budgetResponse() } });
    renderWithApi(<Budgets />);
    await screen.findByLabelText('Daily soft cap (USD)');
    expect(screen.queryByText('Admission')).toBeNull();
  });

  it('rejects a soft cap above the hard cap, and negative caps, without calling the API', async () => {
    const api = mockApi({ 'GET /v1/budget': { body: budgetResponse() } });
    const { user } = renderWithApi(<Budgets />);
    const dailySoft = await screen.findByLabelText('Daily soft cap (USD)');
    await user.clear(dailySoft);
    await user.type(dailySoft, '60');
    await user.clear(screen.getByLabelText('Monthly hard cap (USD)'));
    await user.type(screen.getByLabelText('Monthly hard cap (USD)'), '-5');
    await user.click(screen.getByRole('button', { name: 'Save budget' }));

    expect(screen.getByText('The soft cap must not be above the hard cap ($50.00)')).toBeInTheDocument();
    expect(dailySoft).toHaveAttribute('aria-invalid', 'true');
    expect(dailySoft).toHaveAccessibleDescription('The soft cap must not be above the hard cap ($50.00)');
    expect(screen.getByText('A cap cannot be negative')).toBeInTheDocument();
    expect(api.callsTo('PUT /v1/budget')).toHaveLength(0);
  });

  it('saves valid caps with PUT /v1/budget {budget}; an empty field means no cap', async () => {
    const api = mockApi({
      'GET /v1/budget': { body: budgetResponse() },
      'PUT /v1/budget': (call) => ({ body: { ...budgetResponse(), ...(call.body as object) } }),
    });
    const { user } = renderWithApi(<Budgets />);
    const monthlySoft = await screen.findByLabelText('Monthly soft cap (USD)');
    await user.clear(monthlySoft);
    await user.clear(screen.getByLabelText('Daily hard cap (USD)'));
    await user.type(screen.getByLabelText('Daily hard cap (USD)'), '45.5');
    await user.selectOptions(screen.getByLabelText('Action when a cap is reached (SDK budget)'), 'warn');
    await user.click(screen.getByRole('button', { name: 'Save budget' }));

    expect(await screen.findByText('Budget saved.')).toBeInTheDocument();
    const [put] = api.callsTo('PUT /v1/budget');
    // the emptied monthly soft cap is left out: the API takes an absent member as "no cap"
    expect(put?.body).toEqual({
      budget: { dailySoftLimitUsd: 40, dailyLimitUsd: 45.5, monthlyLimitUsd: 1000, action: 'warn' },
    });
  });

  it('keeps an allowed deferred billing on save, and sends it when checked', async () => {
    const base = budgetResponse();
    const allowed = { ...base, budget: { ...base.budget, allowDeferredBilling: true } };
    const api = mockApi({
      'GET /v1/budget': { body: allowed },
      'PUT /v1/budget': (call) => ({ body: { ...allowed, ...(call.body as object) } }),
    });
    const { user } = renderWithApi(<Budgets />);
    const box = await screen.findByLabelText(/Allow batch, fine-tuning and background calls/);
    expect(box).toBeChecked();
    await user.click(screen.getByRole('button', { name: 'Save budget' }));
    expect(await screen.findByText('Budget saved.')).toBeInTheDocument();
    expect(api.callsTo('PUT /v1/budget')[0]?.body).toMatchObject({ budget: { allowDeferredBilling: true } });
    await user.click(box);
    await user.click(screen.getByRole('button', { name: 'Save budget' }));
    await waitFor(() => expect(api.callsTo('PUT /v1/budget')).toHaveLength(2));
    expect(api.callsTo('PUT /v1/budget')[1]?.body).not.toHaveProperty('budget.allowDeferredBilling');
  });

  it("shows the API's 400 problems next to the fields", async () => {
    mockApi({
      'GET /v1/budget': { body: budgetResponse() },
      'PUT /v1/budget': apiError(400, 'invalid_request', 'invalid budget update', [
        { path: 'budget.monthlyLimitUsd', message: 'must be at most 1000000000' },
        { path: 'budget', message: 'The daily hard cap must not exceed the monthly hard cap' },
      ]),
    });
    const { user } = renderWithApi(<Budgets />);
    const monthlyHard = await screen.findByLabelText('Monthly hard cap (USD)');
    await user.clear(monthlyHard);
    await user.type(monthlyHard, '99999999999');
    await user.click(screen.getByRole('button', { name: 'Save budget' }));

    expect(await screen.findByText('must be at most 1000000000')).toBeInTheDocument();
    expect(monthlyHard).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByRole('alert')).toHaveTextContent('invalid budget update (HTTP 400)');
    expect(screen.getByRole('list', { name: 'Problems' })).toHaveTextContent(
      'budget: The daily hard cap must not exceed the monthly hard cap',
    );
  });

  it("shows the API's error message when the budget cannot be loaded", async () => {
    mockApi({ 'GET /v1/budget': apiError(401, 'unauthorized', 'The ID token has expired') });
    renderWithApi(<Budgets />);
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent('The ID token has expired (HTTP 401)'),
    );
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
