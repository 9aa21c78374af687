import { loadBundledProviders } from '../pricing/bundled-data';
import { clientEventSchema } from './client-event';
import { MAX_CALL_TOKENS } from './common';
import { ingestEventSchema } from './ingest';

describe('per-call token plausibility bound (issue 15.2)', () => {
  it('is at least twice the largest context window in the price data', () => {
    let largest = 0;
    for (const p of loadBundledProviders()) {
      for (const m of p.models) largest = Math.max(largest, m.context_window ?? 0);
    }
    expect(largest).toBeGreaterThanOrEqual(1_000_000); // the data does carry context windows
    expect(MAX_CALL_TOKENS).toBeGreaterThanOrEqual(2 * largest);
  });

  const ingest = (usage: Record<string, number>) =>
    ingestEventSchema.safeParse({
      model: 'o1-pro',
      usage: { prompt_tokens: 0, completion_tokens: 0, ...usage },
    });

  it.each([
    ['prompt_tokens', { prompt_tokens: MAX_CALL_TOKENS + 1 }],
    ['completion_tokens', { completion_tokens: 1_000_000_000 }],
    ['cache_read_tokens', { cache_read_tokens: MAX_CALL_TOKENS + 1 }],
    ['reasoning_tokens', { reasoning_tokens: MAX_CALL_TOKENS + 1 }],
    ['completion_tokens', { prompt_tokens: MAX_CALL_TOKENS, completion_tokens: 1 }],
  ])('refuses an ingest event over the bound, naming %s', (field, usage) => {
    const r = ingest(usage);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.'))).toContain(`usage.${field}`);
  });

  it('accepts an event exactly at the bound', () => {
    expect(
      ingest({ prompt_tokens: MAX_CALL_TOKENS / 2, completion_tokens: MAX_CALL_TOKENS / 2 }).success,
    ).toBe(true);
  });

  it('bounds the client form the same way', () => {
    const base = {
      id: '3b241101-e2bb-4255-8caf-4136c566a962',
      timestamp: '2026-11-22T10:00:00.000Z',
      provider: 'openai',
      model: 'o1-pro',
      totalTokens: 0,
      estimatedCostUsd: 0,
      costSource: 'PROVIDER_REGISTRY',
      latencyMs: 1,
      statusCode: 200,
    };
    expect(
      clientEventSchema.safeParse({ ...base, promptTokens: MAX_CALL_TOKENS, completionTokens: 0 }).success,
    ).toBe(true);
    const over = clientEventSchema.safeParse({ ...base, promptTokens: MAX_CALL_TOKENS, completionTokens: 1 });
    expect(over.error?.issues.map((i) => i.path.join('.'))).toEqual(['completionTokens']);
  });
});
