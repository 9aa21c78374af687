/**
 * The client's price table and estimates: generated (not hand-copied) from core/pricing, and equal to
 * core/pricing's `calculateCost` to the nano-dollar for every model of the table; unknown models use the
 * same FALLBACK_ECONOMICS families.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { calculateCost, getDefaultPriceRegistry } from '../../core/pricing';
import { makeUsage } from '../../core/usage/normalize';
import { buildPriceRows, GENERATED_PATH, MODELS } from '../scripts/gen-prices';
import { estimateCost, priceTableSize } from '../src/pricing';
import { PRICE_ROWS } from '../src/prices.generated';

describe('the generated price table', () => {
  it('holds what sdk/scripts/gen-prices.ts generates from core/pricing (regenerate it when this fails)', () => {
    expect(PRICE_ROWS).toEqual(buildPriceRows());
    expect(priceTableSize()).toBe(MODELS.length);
    expect(MODELS.length).toBeGreaterThanOrEqual(60);
  });

  it('starts with the do-not-edit header', () => {
    expect(readFileSync(GENERATED_PATH, 'utf8')).toMatch(/^\/\/ GENERATED FILE — DO NOT EDIT/);
  });
});

const usageArb = fc
  .record({
    inputTokens: fc.integer({ min: 0, max: 400_000 }),
    cacheReadTokens: fc.integer({ min: 0, max: 50_000 }),
    cacheWrite5mTokens: fc.integer({ min: 0, max: 20_000 }),
    cacheWrite1hTokens: fc.integer({ min: 0, max: 20_000 }),
    outputTokens: fc.integer({ min: 0, max: 100_000 }),
    reasoningTokens: fc.integer({ min: 0, max: 50_000 }),
    serviceTier: fc.constantFrom(null, 'default', 'flex', 'priority', 'batch'),
  })
  .map((u) => makeUsage(u));

/** Times across the dated and time-of-day periods of the table. */
const atArb = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) });

describe('estimateCost', () => {
  it('equals core calculateCost for every model of the table, any usage, tier and time', () => {
    fc.assert(
      fc.property(fc.constantFrom(...MODELS), usageArb, atArb, ([provider, model], usage, at) => {
        const client = estimateCost(provider, model, usage, at);
        const core = calculateCost({ provider, usage: { ...usage, model }, at });
        expect(client.costSource).toBe('PROVIDER_REGISTRY');
        expect(client.matchedModel).toBe(core.matchedModel);
        expect(client.costNanos).toBe(core.costNanos);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['openai', 'gpt-4o-2024-08-06'],
    ['openai', 'GPT-4o-mini'],
    ['anthropic', 'claude-sonnet-4-5-20250929'],
    ['openrouter', 'openai/gpt-4o-mini'],
    ['gemini', 'models/gemini-2.5-flash'],
  ])('recognises %s %s as a table model (dates, case, paths)', (provider, model) => {
    const usage = makeUsage({ inputTokens: 1000, outputTokens: 500 });
    const client = estimateCost(provider, model, usage, Date.now());
    const core = calculateCost({ provider, usage: { ...usage, model }, at: Date.now() });
    expect(client).toMatchObject({
      costSource: 'PROVIDER_REGISTRY',
      matchedModel: core.matchedModel,
      costNanos: core.costNanos,
    });
  });

  it.each([
    ['llama', 'llama-3.1-8b-instruct'],
    ['llama', 'my-org/finetuned-70b'],
    ['llama', 'mystery'],
    ['openai', 'gpt-9-hyper'],
    ['anthropic', 'claude-opus-9'],
    ['together', 'unknown-vendor/unknown-model'],
  ])('prices unknown %s %s with the same FALLBACK_ECONOMICS family as core', (provider, model) => {
    const usage = makeUsage({ inputTokens: 12_345, outputTokens: 678, cacheReadTokens: 1000 });
    const client = estimateCost(provider, model, usage, Date.now());
    const core = calculateCost({ provider, usage: { ...usage, model }, at: Date.now() });
    expect(getDefaultPriceRegistry().resolve(provider, model).costSource).toBe('FALLBACK_ECONOMICS');
    expect(client).toEqual({
      costSource: 'FALLBACK_ECONOMICS',
      matchedModel: core.matchedModel,
      costNanos: core.costNanos,
    });
    expect(client.costNanos).toBeGreaterThan(0);
  });

  it('prices models outside the table by fallback (the server re-prices them exactly)', () => {
    const usage = makeUsage({ inputTokens: 1000, outputTokens: 1000 });
    expect(estimateCost('openai', 'gpt-4-0613', usage, Date.now()).costSource).toBe('FALLBACK_ECONOMICS');
    expect(estimateCost('openai', '', usage, Date.now()).costSource).toBe('FALLBACK_ECONOMICS');
  });
});
