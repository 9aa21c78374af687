import type { LedgerEntry } from '../../core/ledger/ledger-entry';
import { ledgerEntryViewSchema } from '../../core/schemas/api';
import { ledgerEntryView } from './views';

const entry: LedgerEntry = {
  eventId: 'evt_1',
  ts: '2026-11-23T10:00:00.000Z',
  source: 'proxy',
  kind: 'call',
  keyId: 'k3v9x0q2m7za',
  provider: 'openrouter',
  model: 'openai/gpt-4o',
  inputTokens: 12_000,
  cacheReadTokens: 10_240,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 400,
  reasoningTokens: 0,
  webSearchRequests: 0,
  costNanos: 21_200_000,
  costSource: 'PROVIDER_REPORTED',
  registryCostNanos: 21_250_000,
  toolFeesNanos: 0,
  pricedAs: 'openai/gpt-4o',
  clientCostUsd: null,
  providerCostUsd: 0.0212,
  estimated: false,
  latencyMs: 900,
  statusCode: 200,
  projectId: null,
  environment: null,
  featureId: null,
  sessionId: null,
  endpoint: '/api/v1/chat/completions',
  stream: false,
  verified: true,
  fingerprint: null,
};

describe('ledger entry view', () => {
  it('shows the provider-reported cost with the registry price beside it', () => {
    const view = ledgerEntryView(entry);

    expect(ledgerEntryViewSchema.safeParse(view).success).toBe(true);
    expect(view).toMatchObject({
      costUsd: 0.0212,
      registryCostUsd: 0.02125,
      costSource: 'PROVIDER_REPORTED',
    });
  });

  it('reads an entry stored before the fee and registry fields as a registry-priced one', () => {
    const { webSearchRequests: _w, registryCostNanos: _r, toolFeesNanos: _t, ...old } = entry;
    const view = ledgerEntryView(old as LedgerEntry);

    expect(ledgerEntryViewSchema.safeParse(view).success).toBe(true);
    expect(view).toMatchObject({ webSearchRequests: 0, toolFeesNanos: 0, registryCostNanos: 21_200_000 });
  });
});
