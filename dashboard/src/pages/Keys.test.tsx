import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import type { ApiKey } from '../api/types';
import { KEYS } from '../test/fixtures';
import { apiError, mockApi } from '../test/mockApi';
import { renderWithApi } from '../test/render';
import { Keys } from './Keys';

const SECRET = 'abn_n3wk3y01abcd_s3cr3t-9f8e7d6c5b4a39281706f5e4d3c2b1a0';

describe('API keys', () => {
  it('lists the keys by prefix, active ones first', async () => {
    mockApi({ 'GET /v1/keys': { body: { keys: [KEYS[1], KEYS[0]] } } });
    renderWithApi(<Keys />);
    expect(screen.getByText('Loading keys…')).toBeInTheDocument();
    const rows = await screen.findAllByTestId('key-row');
    expect(rows).toHaveLength(2);
    expect(within(rows[0]!).getByText('billing-agent production')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('abn_k3v9x0q2m7za…')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('Active')).toBeInTheDocument();
    expect(within(rows[1]!).getByText(/Revoked 2026-10-20/)).toBeInTheDocument();
    expect(within(rows[1]!).queryByRole('button', { name: /Revoke/ })).toBeNull();
  });

  it('creates a key and shows its secret once, with a copy button and a warning', async () => {
    let keys = [KEYS[0]];
    const created: ApiKey = {
      publicId: 'n3wk3y01abcd',
      prefix: 'abn_n3wk3y01abcd',
      name: 'ci smoke tests',
      createdAt: '2026-11-22T13:00:00.000Z',
      revokedAt: null,
      scopes: ['proxy', 'ingest', 'read'],
    };
    const api = mockApi({
      'GET /v1/keys': () => ({ body: { keys } }),
      'POST /v1/keys': () => {
        keys = [created, ...keys];
        return { status: 201, body: { key: created, apiKey: SECRET } };
      },
    });
    const { user } = renderWithApi(<Keys />);
    await screen.findAllByTestId('key-row');

    await user.type(screen.getByLabelText('Key name'), '  ci smoke tests ');
    await user.click(screen.getByRole('button', { name: 'Create key' }));

    const panel = await screen.findByTestId('new-key');
    expect(api.callsTo('POST /v1/keys')[0]?.body).toEqual({ name: 'ci smoke tests' });
    expect(within(panel).getByLabelText('New API key')).toHaveValue(SECRET);
    expect(panel).toHaveTextContent('Copy this key now — you won’t see it again.');
    await waitFor(() => expect(screen.getAllByTestId('key-row')).toHaveLength(2));
    // the list shows prefixes only, never the secret
    expect(screen.getByText('abn_n3wk3y01abcd…')).toBeInTheDocument();
    expect(screen.getAllByDisplayValue(SECRET)).toHaveLength(1);

    await user.click(within(panel).getByRole('button', { name: 'Copy API key' }));
    expect(await navigator.clipboard.readText()).toBe(SECRET);
    expect(await within(panel).findByText('Copied to the clipboard.')).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: /I’ve saved it/ }));
    expect(screen.queryByTestId('new-key')).toBeNull();
    expect(screen.queryByDisplayValue(SECRET)).toBeNull();
    expect(document.body.textContent).not.toContain(SECRET);
    expect(screen.getByLabelText('Key name')).toHaveValue('');
  });

  it('lists each key with its scopes', async () => {
    mockApi({
      'GET /v1/keys': {
        body: {
          keys: [
            { ...KEYS[0], scopes: ['proxy'] },
            { ...KEYS[0], publicId: 'allscopes00a', name: 'every scope' },
          ],
        },
      },
    });
    renderWithApi(<Keys />);
    const rows = await screen.findAllByTestId('key-row');
    const scopesOf = (row: HTMLElement) =>
      [...within(row).getByTestId('key-scopes').querySelectorAll('.scope-badge')].map((b) => b.textContent);
    expect(rows.map(scopesOf)).toEqual([['Proxy'], ['Proxy', 'Ingest', 'Read']]);
  });

  it('creates a key with the scopes chosen; all three checked sends no list, none is refused', async () => {
    const created = {
      publicId: 'n3wk3y01abcd',
      prefix: 'abn_n3wk3y01abcd',
      name: 'browser',
      createdAt: '2026-11-22T13:00:00.000Z',
      revokedAt: null,
      scopes: ['proxy'],
    };
    const api = mockApi({
      'GET /v1/keys': { body: { keys: [] } },
      'POST /v1/keys': { status: 201, body: { key: created, apiKey: SECRET } },
    });
    const { user } = renderWithApi(<Keys />);
    await screen.findByText(/No API keys yet/);
    for (const label of [/^Proxy/, /^Ingest/, /^Read/]) expect(screen.getByLabelText(label)).toBeChecked();

    await user.type(screen.getByLabelText('Key name'), 'browser');
    await user.click(screen.getByLabelText(/^Ingest/));
    await user.click(screen.getByLabelText(/^Read/));
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    await screen.findByTestId('new-key');
    expect(api.callsTo('POST /v1/keys')[0]?.body).toEqual({ name: 'browser', scopes: ['proxy'] });

    await user.click(screen.getByRole('button', { name: /I’ve saved it/ }));
    // The form is back with every scope; unchecking all is refused before any call.
    await user.type(screen.getByLabelText('Key name'), 'nothing');
    for (const label of [/^Proxy/, /^Ingest/, /^Read/]) await user.click(screen.getByLabelText(label));
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Choose at least one scope');
    expect(api.callsTo('POST /v1/keys')).toHaveLength(1);
  });

  it('asks for a name, and shows why creating failed', async () => {
    const api = mockApi({
      'GET /v1/keys': { body: { keys: [] } },
      'POST /v1/keys': apiError(400, 'invalid_request', 'Invalid request', [
        { path: 'name', message: 'Too long: at most 100 characters' },
      ]),
    });
    const { user } = renderWithApi(<Keys />);
    expect(await screen.findByText(/No API keys yet/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Give the key a name');
    expect(api.callsTo('POST /v1/keys')).toHaveLength(0);

    await user.type(screen.getByLabelText('Key name'), 'x');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect(
      await screen.findByText(/Invalid request \(Too long: at most 100 characters\)/),
    ).toBeInTheDocument();
  });

  it('revokes a key with DELETE /v1/keys/{publicId} after confirmation; Cancel sends nothing', async () => {
    let keys = [KEYS[0]];
    const api = mockApi({
      'GET /v1/keys': () => ({ body: { keys } }),
      'DELETE /v1/keys/k3v9x0q2m7za': () => {
        keys = [{ ...KEYS[0]!, revokedAt: '2026-11-22T13:05:00.000Z' }];
        return { body: { revoked: true } };
      },
    });
    const { user } = renderWithApi(<Keys />);
    const row = within((await screen.findAllByTestId('key-row'))[0]!);

    await user.click(row.getByRole('button', { name: 'Revoke key billing-agent production' }));
    await user.click(row.getByRole('button', { name: 'Cancel' }));
    expect(api.callsTo('DELETE /v1/keys/k3v9x0q2m7za')).toHaveLength(0);

    await user.click(row.getByRole('button', { name: 'Revoke key billing-agent production' }));
    expect(row.getByText(/Programs using this key will get 401/)).toBeInTheDocument();
    await user.click(row.getByRole('button', { name: 'Yes, revoke' }));

    await waitFor(() => expect(screen.getByText(/Revoked 2026-11-22/)).toBeInTheDocument());
    expect(api.callsTo('DELETE /v1/keys/k3v9x0q2m7za')).toHaveLength(1);
  });

  it("shows the API's error message when the keys cannot be loaded", async () => {
    mockApi({ 'GET /v1/keys': apiError(403, 'forbidden', 'Your token has no organization (custom:orgId)') });
    renderWithApi(<Keys />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Your token has no organization (custom:orgId) (HTTP 403)',
    );
  });
});
