import { eventEnvelopeSchema } from '../../core/events/telemetry-event';
import { proxyEventSchema } from '../../core/schemas';
import { buildTelemetryEvent, envelopeFor, toProxyEvent, type ProxyCall } from './proxy-event';

const base: ProxyCall = {
  eventId: '0b7c3a8e-8f0e-4c43-9a43-2b1f6f0c1f11',
  startedAt: Date.UTC(2026, 10, 22, 10, 0, 0, 123),
  endedAt: Date.UTC(2026, 10, 22, 10, 0, 1, 0),
  provider: 'openai',
  requestedModel: 'gpt-4o-mini',
  endpoint: '/v1/chat/completions',
  statusCode: 200,
  usage: {
    model: 'gpt-4o-mini-2024-07-18',
    inputTokens: 120,
    cacheReadTokens: 100,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: 30,
    reasoningTokens: 0,
    serviceTier: 'default',
    webSearchRequests: 0,
    providerCostUsd: null,
    estimated: false,
  },
  billable: true,
  estimatedInputTokens: () => 99,
  stream: true,
  cut: false,
  fingerprint: 'sha256:' + 'a'.repeat(64),
  verified: true,
  clientCostUsd: 0.0000345,
  context: { sessionId: 'sess-42', projectId: null, environment: null, featureId: null },
};

describe('proxy event', () => {
  it('builds one valid internal envelope and its spec 2.2 form', () => {
    // Act
    const event = buildTelemetryEvent(base);
    const envelope = envelopeFor('org_acme', 'k3v9x0q2m7za', event, base.endedAt);
    const wire = toProxyEvent(envelope);
    // Assess
    expect(eventEnvelopeSchema.parse(envelope)).toEqual(envelope);
    // The model the request named and the one that answered are both kept (gen_ai.request/response.model).
    expect(event).toMatchObject({ model: 'gpt-4o-mini-2024-07-18', requestedModel: 'gpt-4o-mini' });
    expect(proxyEventSchema.parse(wire)).toEqual(wire);
    expect(wire).toEqual({
      ts: '2026-11-22T10:00:00.123Z',
      org_id: 'org_acme',
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
      endpoint: '/v1/chat/completions',
      status: 200,
      tokens_in: 120,
      tokens_out: 30,
      cost_usd: 0.0000345,
      latency_ms: 877,
      fingerprint: 'sha256:' + 'a'.repeat(64),
      stream: true,
      estimated: false,
      key_prefix: 'abn_k3v9x0q2m7za',
      verified: true,
      event_id: base.eventId,
      session_id: 'sess-42',
      cache_read_tokens: 100,
      cache_write_5m_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
      service_tier: 'default',
      provider_cost_usd: null,
      web_search_requests: 0,
    });
  });

  it.each([
    [
      'provider error: zero tokens, not estimated',
      { statusCode: 500, usage: undefined, billable: false },
      0,
      false,
    ],
    ['success without usage: prompt estimated', { usage: undefined }, 99, true],
    ['cut stream with usage: estimated', { cut: true }, 120, true],
    ['unverified, no fingerprint', { verified: false, fingerprint: null }, 120, false],
  ] as const)('%s', (_name, patch, tokensIn, estimated) => {
    const event = buildTelemetryEvent({ ...base, ...patch });
    const wire = toProxyEvent(envelopeFor('org_acme', 'k3v9x0q2m7za', event, base.endedAt));
    expect(proxyEventSchema.safeParse(wire).success).toBe(true);
    expect(wire.tokens_in).toBe(tokensIn);
    expect(wire.estimated).toBe(estimated);
  });

  it('prefers the provider-reported cost for cost_usd', () => {
    const event = buildTelemetryEvent({ ...base, usage: { ...base.usage!, providerCostUsd: 0.002 } });
    expect(toProxyEvent(envelopeFor('org_acme', 'k3v9x0q2m7za', event, 0)).cost_usd).toBe(0.002);
  });

  it('carries the provider-reported cost and the web searches into the event and its wire form', () => {
    const event = buildTelemetryEvent({
      ...base,
      usage: { ...base.usage!, providerCostUsd: 0.00345, webSearchRequests: 3 },
    });
    const wire = toProxyEvent(envelopeFor('org_acme', 'k3v9x0q2m7za', event, 0));

    expect(event).toMatchObject({ providerCostUsd: 0.00345, webSearchRequests: 3 });
    expect(wire).toMatchObject({ provider_cost_usd: 0.00345, web_search_requests: 3 });
    expect(proxyEventSchema.safeParse(wire).success).toBe(true);
  });
});
