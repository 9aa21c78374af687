import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import type { AuditEntry } from '../api/audit';
import { apiError, mockApi } from '../test/mockApi';
import { renderWithApi } from '../test/render';
import { Audit } from './Audit';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  id: 'a1',
  at: '2026-11-22T12:00:00.000Z',
  action: 'budget.updated',
  actor: { kind: 'person', sub: 'u1', email: 'ana@acme.io', role: 'admin' },
  target: null,
  before: { budget: { dailyLimitUsd: 50, action: 'block' } },
  after: { budget: { action: 'block' } },
  ...over,
});

describe('Audit', () => {
  it('lists each change with who, what, before and after; a refused attempt stands out', async () => {
    const api = mockApi({
      'GET /v1/audit': {
        body: {
          entries: [
            entry({}),
            entry({
              id: 'a2',
              action: 'role.denied',
              actor: { kind: 'person', sub: 'u2', email: 'bo@acme.io', role: 'member' },
              target: 'PUT /v1/pricing/rates',
              before: null,
              after: { needed: 'admin', had: 'member' },
            }),
          ],
          nextCursor: null,
          retentionDays: 400,
        },
      },
    });
    renderWithApi(<Audit />);
    const rows = await screen.findAllByTestId('audit-row');
    expect(rows).toHaveLength(2);
    const first = within(rows[0]!);
    expect(first.getByTestId('audit-actor')).toHaveTextContent('ana@acme.io (admin)');
    expect(first.getByTestId('audit-action')).toHaveTextContent('Budget or policy changed');
    expect(first.getByTestId('audit-before')).toHaveTextContent('"dailyLimitUsd":50');
    expect(first.getByTestId('audit-after')).toHaveTextContent('{"budget":{"action":"block"}}');
    const second = within(rows[1]!);
    expect(second.getByTestId('audit-action')).toHaveTextContent('Refused: role too low');
    expect(second.getByText('PUT /v1/pricing/rates')).toBeInTheDocument();
    expect(screen.getByText(/kept 400 days/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Older changes' })).toBeNull();
    expect(api.callsTo('GET /v1/audit')[0]?.query).toEqual({ limit: '50' });
  });

  it('pages with the cursor and filters by action', async () => {
    const api = mockApi({
      'GET /v1/audit': (call) =>
        call.query.cursor === 'c1'
          ? { body: { entries: [entry({ id: 'old' })], nextCursor: null, retentionDays: 400 } }
          : { body: { entries: [entry({ id: 'new' })], nextCursor: 'c1', retentionDays: 400 } },
    });
    renderWithApi(<Audit />);
    expect(await screen.findAllByTestId('audit-row')).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Older changes' }));
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(2));
    expect(api.callsTo('GET /v1/audit')[1]?.query).toEqual({ limit: '50', cursor: 'c1' });

    fireEvent.change(screen.getByLabelText('Show'), { target: { value: 'key.created' } });
    await waitFor(() =>
      expect(api.callsTo('GET /v1/audit').at(-1)?.query).toEqual({ limit: '50', action: 'key.created' }),
    );
    await waitFor(() => expect(screen.getAllByTestId('audit-row')).toHaveLength(1));
  });

  it('shows the refusal a viewer gets', async () => {
    mockApi({
      'GET /v1/audit': apiError(403, 'role_required', 'GET /v1/audit needs the member role'),
    });
    renderWithApi(<Audit />);
    expect(await screen.findByRole('alert')).toHaveTextContent('GET /v1/audit needs the member role');
  });
});
