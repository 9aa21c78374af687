import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

import { ledgerEntry } from '../test/fixtures';
import { apiError, deferred, mockApi } from '../test/mockApi';
import { renderWithApi, TEST_TOKEN } from '../test/render';
import { CSV_HEADER, Ledger, ledgerCsv } from './Ledger';
import { normalizeLedgerEntry } from '../api/client';

describe('Ledger', () => {
  it('loads the newest calls and shows each one with source, provider, model, tokens, cost and cost source', async () => {
    const gate = deferred();
    const api = mockApi({
      'GET /v1/ledger': {
        wait: gate.promise,
        body: {
          entries: [
            ledgerEntry(1),
            ledgerEntry(2, {
              source: 'sdk',
              provider: 'anthropic',
              model: 'claude-sonnet-4-5',
              costUsd: 0.0153,
            }),
            ledgerEntry(3, { source: 'ingest', costUsd: undefined, costNanos: 2_500_000_000 }),
          ],
          nextCursor: null,
        },
      },
    });
    renderWithApi(<Ledger />);
    expect(screen.getByText('Loading ledger…')).toBeInTheDocument();
    gate.resolve();

    const rows = await screen.findAllByTestId('ledger-row');
    expect(rows).toHaveLength(3);
    const first = within(rows[0]!);
    expect(first.getByText('2026-11-22 12:59:00')).toBeInTheDocument();
    expect(first.getByText('Proxy')).toBeInTheDocument();
    expect(first.getByText('gpt-4o-mini')).toBeInTheDocument();
    expect(first.getByText('1,201')).toBeInTheDocument();
    expect(first.getByText('$0.000123')).toBeInTheDocument();
    expect(first.getByText('registry')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('SDK')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('$0.0153')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('Ingest')).toBeInTheDocument();
    expect(within(rows[2]!).getByText('$2.50')).toBeInTheDocument();

    const [call] = api.callsTo('GET /v1/ledger');
    expect(call?.query).toEqual({ limit: '50' });
    expect(call?.headers.authorization).toBe(`Bearer ${TEST_TOKEN}`);
    expect(screen.getByRole('button', { name: 'Next →' })).toBeDisabled();
    expect(screen.getByRole('button', { name: '← Previous' })).toBeDisabled();
  });

  it('marks estimated calls est, and ~est when priced by fallback economics', async () => {
    mockApi({
      'GET /v1/ledger': {
        body: {
          entries: [
            ledgerEntry(1),
            ledgerEntry(2, { estimated: true }),
            ledgerEntry(3, { estimated: true, costSource: 'FALLBACK_ECONOMICS', model: 'new-model-x' }),
            ledgerEntry(4, { costSource: 'FALLBACK_ECONOMICS' }),
          ],
          nextCursor: null,
        },
      },
    });
    renderWithApi(<Ledger />);
    const rows = await screen.findAllByTestId('ledger-row');
    expect(within(rows[0]!).queryByTestId('est-marker')).toBeNull();
    expect(within(rows[1]!).getByTestId('est-marker')).toHaveTextContent(/^est$/);
    expect(within(rows[2]!).getByTestId('est-marker')).toHaveTextContent(/^~est$/);
    expect(within(rows[3]!).queryByTestId('est-marker')).toBeNull();
    expect(within(rows[3]!).getByText('fallback')).toBeInTheDocument();
  });

  it('sends the filters in the query string and starts again from the first page', async () => {
    const api = mockApi({
      'GET /v1/ledger': { body: { entries: [ledgerEntry(1)], nextCursor: 'c-page-2' } },
    });
    const { user } = renderWithApi(<Ledger />);
    await screen.findAllByTestId('ledger-row');

    await user.type(screen.getByLabelText('Provider'), 'anthropic');
    await user.type(screen.getByLabelText('Model'), 'claude-sonnet-4-5');
    await user.type(screen.getByLabelText('Project'), 'support-bot');
    await user.type(screen.getByLabelText('Feature'), 'triage');
    await user.selectOptions(screen.getByLabelText('Source'), 'proxy');
    await user.selectOptions(screen.getByLabelText('Rows per page'), '100');
    await user.type(screen.getByLabelText('From'), '2026-11-01T00:00');
    await user.type(screen.getByLabelText('To'), '2026-11-22T23:59');
    // nothing is sent before Apply
    expect(api.callsTo('GET /v1/ledger')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));

    await waitFor(() => expect(api.callsTo('GET /v1/ledger')).toHaveLength(2));
    expect(api.callsTo('GET /v1/ledger')[1]?.query).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      projectId: 'support-bot',
      featureId: 'triage',
      source: 'proxy',
      limit: '100',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-11-22T23:59:00.000Z',
    });

    await user.click(screen.getByRole('button', { name: 'Reset' }));
    await waitFor(() => expect(api.callsTo('GET /v1/ledger')).toHaveLength(3));
    expect(api.callsTo('GET /v1/ledger')[2]?.query).toEqual({ limit: '50' });
  });

  it('pages with the cursor: Next sends nextCursor, Previous returns to the cursor before it', async () => {
    const pages: Record<string, { entries: unknown[]; nextCursor: string | null }> = {
      first: { entries: [ledgerEntry(1), ledgerEntry(2)], nextCursor: 'cur-A' },
      'cur-A': { entries: [ledgerEntry(3), ledgerEntry(4)], nextCursor: 'cur-B' },
      'cur-B': { entries: [ledgerEntry(5)], nextCursor: null },
    };
    const api = mockApi({ 'GET /v1/ledger': (call) => ({ body: pages[call.query.cursor ?? 'first'] }) });
    const { user } = renderWithApi(<Ledger />);
    await screen.findAllByTestId('ledger-row');
    const next = () => screen.getByRole('button', { name: 'Next →' });
    const previous = () => screen.getByRole('button', { name: '← Previous' });

    await user.click(next());
    await waitFor(() => expect(screen.getByText(/Page 2/)).toBeInTheDocument());
    await user.click(next());
    await waitFor(() => expect(screen.getAllByTestId('ledger-row')).toHaveLength(1));
    expect(screen.getByText(/Page 3/)).toBeInTheDocument();
    expect(next()).toBeDisabled();

    await user.click(previous());
    await waitFor(() => expect(screen.getAllByTestId('ledger-row')).toHaveLength(2));
    expect(screen.getByText(/Page 2/)).toBeInTheDocument();

    const cursors = api.callsTo('GET /v1/ledger').map((c) => c.query.cursor);
    expect(cursors).toEqual([undefined, 'cur-A', 'cur-B', 'cur-A']);
  });

  it('exports the loaded rows as CSV with proper quoting', async () => {
    mockApi({
      'GET /v1/ledger': {
        body: {
          entries: [
            ledgerEntry(1, {
              model: 'ft:gpt-4o-mini:acme,inc:"triage"',
              estimated: true,
              costSource: 'FALLBACK_ECONOMICS',
            }),
            ledgerEntry(2, { featureId: 'line1\nline2', projectId: null }),
          ],
          nextCursor: null,
        },
      },
    });
    let blob: Blob | undefined;
    vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
      blob = b as Blob;
      return 'blob:ledger';
    });
    vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const { user } = renderWithApi(<Ledger />);
    await screen.findAllByTestId('ledger-row');

    await user.click(screen.getByRole('button', { name: 'Export CSV' }));

    expect(click).toHaveBeenCalledTimes(1);
    expect(blob?.type).toBe('text/csv;charset=utf-8');
    const text = await blob!.text();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(CSV_HEADER.join(','));
    expect(lines[1]).toBe(
      '2026-11-22T12:59:00.000Z,proxy,openai,"ft:gpt-4o-mini:acme,inc:""triage""",1201,300,0,0.000123,FALLBACK_ECONOMICS,~est,support-bot,triage,production,,200,812,evt_0001',
    );
    expect(text).toContain(',"line1\nline2",');
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('neutralizes spreadsheet formulas in text fields', () => {
    const csv = ledgerCsv([normalizeLedgerEntry(ledgerEntry(1, { model: '=HYPERLINK("x")' }))]);
    expect(csv.split('\r\n')[1]).toContain(`,"'=HYPERLINK(""x"")",`);
  });

  it('shows an empty state, and a different one when filters match nothing', async () => {
    mockApi({ 'GET /v1/ledger': { body: { entries: [], nextCursor: null } } });
    const { user } = renderWithApi(<Ledger />);
    expect(await screen.findByText(/No calls recorded yet/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeDisabled();
    await user.type(screen.getByLabelText('Provider'), 'groq');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    expect(await screen.findByText('No calls match these filters.')).toBeInTheDocument();
  });

  it("shows the API's error message", async () => {
    mockApi({ 'GET /v1/ledger': apiError(400, 'invalid_cursor', 'The cursor is not valid for this query') });
    renderWithApi(<Ledger />);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'The cursor is not valid for this query (HTTP 400)',
    );
  });
});
