import { clientEventSchema, ingestEventSchema } from '../schemas';
import { fromClientEvent, fromIngestEvent } from './from-wire';
import { telemetryEventSchema } from './telemetry-event';

describe('provider-reported cost and tool fees on the wire forms', () => {
  it('carries an ingest event usage.cost and usage.web_search_requests into the internal event', () => {
    const wire = ingestEventSchema.parse({
      model: 'openai/gpt-4o',
      provider: 'openrouter',
      usage: { prompt_tokens: 12000, completion_tokens: 400, cost: 0.0212, web_search_requests: 2 },
    });
    const event = fromIngestEvent(wire, Date.UTC(2026, 10, 23), () => 'id1');

    expect(telemetryEventSchema.parse(event)).toMatchObject({
      providerCostUsd: 0.0212,
      webSearchRequests: 2,
    });
  });

  it('carries a client event providerCostUsd and webSearchRequests into the internal event', () => {
    const wire = clientEventSchema.parse({
      id: '3b241101-e2bb-4255-8caf-4136c566a962',
      timestamp: '2026-11-23T10:00:00.000Z',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      promptTokens: 6039,
      completionTokens: 931,
      totalTokens: 6970,
      estimatedCostUsd: 0.062082,
      costSource: 'PROVIDER_REGISTRY',
      latencyMs: 900,
      statusCode: 200,
      providerCostUsd: 0.05,
      webSearchRequests: 3,
    });

    expect(fromClientEvent(wire)).toMatchObject({ providerCostUsd: 0.05, webSearchRequests: 3 });
  });

  it('leaves both absent as null and 0', () => {
    const wire = ingestEventSchema.parse({
      model: 'gpt-4o',
      usage: { prompt_tokens: 1, completion_tokens: 1 },
    });

    expect(fromIngestEvent(wire, 0, () => 'id2')).toMatchObject({
      providerCostUsd: null,
      webSearchRequests: 0,
    });
  });

  it.each([
    [{ cost: -0.01 }, 'usage.cost'],
    [{ web_search_requests: 1.5 }, 'usage.web_search_requests'],
  ])('rejects %j at %s', (extra, path) => {
    const parsed = ingestEventSchema.safeParse({
      model: 'gpt-4o',
      usage: { prompt_tokens: 1, completion_tokens: 1, ...extra },
    });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.join('.')).toBe(path);
  });
});
