import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';

import { session } from '../test/fixtures';
import { apiError, mockApi } from '../test/mockApi';
import { renderWithApi } from '../test/render';
import { Sessions } from './Sessions';

describe('Sessions', () => {
  it('shows each session: calls, cost, prompt growth, repeated fingerprints and the trip that stopped it', async () => {
    const api = mockApi({
      'GET /v1/sessions': {
        body: {
          sessions: [
            session(),
            session({
              sessionId: 'agent-8',
              calls: 1,
              costUsd: 0.00015,
              promptTokens: [{ ts: '2026-11-22T12:39:30.000Z', tokens: 500 }],
              repeatedFingerprints: [],
              trip: null,
              flag: null,
            }),
          ],
          hours: 24,
          truncated: false,
        },
      },
    });
    renderWithApi(<Sessions />);
    expect(screen.getByText('Loading sessions…')).toBeInTheDocument();
    const cards = await screen.findAllByTestId('session-card');
    expect(cards).toHaveLength(2);
    expect(api.callsTo('GET /v1/sessions')[0]?.query).toEqual({ hours: '24' });

    const loop = within(cards[0]!);
    expect(loop.getByRole('heading', { name: /agent-7/ })).toBeInTheDocument();
    expect(loop.getByTestId('session-state')).toHaveTextContent('SUSPENDED');
    expect(loop.getByTestId('session-calls')).toHaveTextContent('4');
    expect(loop.getByTestId('session-cost')).toHaveTextContent('$0.0006');
    expect(loop.getByTestId('prompt-growth-chart')).toHaveAttribute(
      'aria-label',
      'Prompt tokens per call of session agent-7: 4 calls, from 1,000 to 4,000 tokens',
    );
    expect(loop.getByTestId('session-repeats')).toHaveTextContent('9f2c4e1a7b3d… × 4');
    expect(loop.getByTestId('session-trip')).toHaveTextContent('Identical-prompt loop');
    expect(loop.getByTestId('session-trip')).toHaveTextContent(
      '4 identical consecutive requests in session agent-7',
    );

    const other = within(cards[1]!);
    expect(other.getByTestId('session-state')).toHaveTextContent('Running');
    expect(other.queryByTestId('prompt-growth-chart')).toBeNull();
    expect(other.getByText('No request was sent twice.')).toBeInTheDocument();
    expect(other.getByText('No guardrail tripped for this session.')).toBeInTheDocument();
    expect(other.queryByTestId('session-resume')).toBeNull();
  });

  it('Resume clears that session only: {apiKey: its key prefix, action ACTIVE, scope session, keyId, sessionId}', async () => {
    let stopped = true;
    const api = mockApi({
      'GET /v1/sessions': () => ({
        body: {
          sessions: [stopped ? session() : session({ flag: null, trip: null })],
          hours: 24,
          truncated: false,
        },
      }),
      'POST /api/guardrails/enforce': () => {
        stopped = false;
        return { body: { success: true, action: 'RESUMED', scope: 'session' } };
      },
    });
    const { user } = renderWithApi(<Sessions />);
    await user.click(await screen.findByTestId('session-resume'));
    await waitFor(() => expect(screen.getByTestId('session-state')).toHaveTextContent('Running'));
    expect(api.callsTo('POST /api/guardrails/enforce').map((c) => c.body)).toEqual([
      {
        apiKey: 'abn_k3v9x0q2m7za',
        action: 'ACTIVE',
        scope: 'session',
        keyId: 'k3v9x0q2m7za',
        sessionId: 'agent-7',
      },
    ]);
    expect(api.callsTo('GET /v1/sessions')).toHaveLength(2);
  });

  it('changes the window, and shows empty and error states', async () => {
    let fail = false;
    const api = mockApi({
      'GET /v1/sessions': () =>
        fail
          ? apiError(500, 'internal_error', 'internal error')
          : { body: { sessions: [], hours: 1, truncated: false } },
    });
    const { user } = renderWithApi(<Sessions />);
    expect(await screen.findByText('No call named a session in this window.')).toBeInTheDocument();
    fail = true;
    await user.selectOptions(screen.getByLabelText('Window'), 'Last 7 days');
    expect(await screen.findByRole('alert')).toHaveTextContent('internal error');
    expect(api.callsTo('GET /v1/sessions').map((c) => c.query.hours)).toEqual(['24', '168']);
  });
});
