import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { App } from './App';
import { budgetResponse, forecastResponse, KEYS, spendResponse } from './test/fixtures';
import { apiError, mockApi } from './test/mockApi';

const LOCAL_CONFIG = {
  apiUrl: 'http://127.0.0.1:3000',
  proxyUrl: 'http://127.0.0.1:3001',
  auth: { mode: 'local', idToken: 'local-token-1' },
};

function overviewRoutes() {
  return {
    'GET /v1/budget': { body: budgetResponse() },
    'GET /v1/spend': { body: spendResponse() },
    'GET /v1/forecast': { body: forecastResponse() },
    'GET /v1/flags': { body: { flags: [] } },
    'GET /v1/keys': { body: { keys: KEYS } },
  };
}

describe('App', () => {
  it('loads config.json and signs in with the local token', async () => {
    const api = mockApi({ 'GET /config.json': { body: LOCAL_CONFIG }, ...overviewRoutes() });
    render(<App />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Overview' })).toBeInTheDocument();
    await screen.findByTestId('spend-chart');
    const budget = api.callsTo('GET /v1/budget')[0];
    expect(budget?.url.origin).toBe('http://127.0.0.1:3000');
    expect(budget?.headers.authorization).toBe('Bearer local-token-1');
  });

  it('fetches a fresh local token from config.json after a 401', async () => {
    let configs = 0;
    const api = mockApi({
      'GET /config.json': () => ({
        body: { ...LOCAL_CONFIG, auth: { mode: 'local', idToken: `local-token-${++configs}` } },
      }),
      ...overviewRoutes(),
      'GET /v1/keys': (call) =>
        call.headers.authorization === 'Bearer local-token-2'
          ? { body: { keys: KEYS } }
          : apiError(401, 'unauthorized', 'Token expired'),
    });
    window.location.hash = '#/keys';
    render(<App />);
    expect(await screen.findAllByTestId('key-row')).toHaveLength(2);
    expect(api.callsTo('GET /v1/keys').map((c) => c.headers.authorization)).toEqual([
      'Bearer local-token-1',
      'Bearer local-token-2',
    ]);
  });

  it('explains a missing or broken config.json', async () => {
    mockApi({ 'GET /config.json': { body: { apiUrl: 'x', auth: { mode: 'saml' } } } });
    render(<App />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'config.json: auth.mode must be "local" or "cognito"',
    );
  });

  it('navigates with the hash router, and the menu button toggles the navigation', async () => {
    mockApi({
      'GET /config.json': { body: LOCAL_CONFIG },
      ...overviewRoutes(),
      'GET /v1/ledger': { body: { entries: [], nextCursor: null } },
    });
    const user = userEvent.setup();
    render(<App />);
    await screen.findByRole('heading', { level: 1, name: 'Overview' });
    const toggle = screen.getByRole('button', { name: /Menu/ });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('link', { name: 'Overview' })).toHaveAttribute('aria-current', 'page');

    await user.click(screen.getByRole('link', { name: 'Ledger' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Ledger' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Ledger' })).toHaveAttribute('aria-current', 'page');
    await waitFor(() => expect(toggle).toHaveAttribute('aria-expanded', 'false'));
    expect(document.title).toBe('Ledger · Spendguard');
    expect(document.activeElement).toBe(screen.getByRole('main'));
  });
});
