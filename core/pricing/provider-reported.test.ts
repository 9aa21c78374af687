import fc from 'fast-check';
import { calculateCost, type PricingUsage } from './index';

const AT = Date.UTC(2025, 10, 23);
const usage = (fields: Partial<PricingUsage>): PricingUsage => ({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...fields,
});

describe('provider-reported cost', () => {
  it('is the cost when present, with the list price kept beside it', () => {
    // openai/gpt-4o on OpenRouter, 1,000 in + 100 out: list $0.0025 + $0.001 = 3,500,000 nanos
    const result = calculateCost({
      provider: 'openrouter',
      usage: usage({ model: 'openai/gpt-4o', inputTokens: 1_000, outputTokens: 100 }),
      at: AT,
      providerCostUsd: 0.0033,
    });

    expect(result).toMatchObject({
      costNanos: 3_300_000,
      costSource: 'PROVIDER_REPORTED',
      registryCostNanos: 3_500_000,
    });
  });

  it('converts the decimal exactly, without float drift (0.1 + 0.2 style amounts)', () => {
    const cost = (usd: number) =>
      calculateCost({ provider: 'openrouter', usage: usage({ model: 'x' }), at: AT, providerCostUsd: usd })
        .costNanos;

    expect(cost(0.000123456)).toBe(123_456);
    expect(cost(0.3)).toBe(300_000_000);
    expect(cost(1.1e-8)).toBe(11);
    expect(cost(0.0000000005)).toBe(1); // half a nano rounds up
  });

  it('equals the decimal digits of any amount with up to 9 decimals', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9_000_000_000_000 }), (nanos) => {
        const usd = Number(`${Math.floor(nanos / 1e9)}.${String(nanos % 1e9).padStart(9, '0')}`);
        const result = calculateCost({
          provider: 'openai',
          usage: usage({ model: 'gpt-4o' }),
          at: AT,
          providerCostUsd: usd,
        });
        expect(result.costNanos).toBe(nanos);
      }),
    );
  });

  it.each([null, undefined, -0.01, Number.NaN, Number.POSITIVE_INFINITY])(
    'is ignored when it is %p: the registry prices the call',
    (reported) => {
      const result = calculateCost({
        provider: 'openai',
        usage: usage({ model: 'gpt-4o', inputTokens: 1_000_000 }),
        at: AT,
        providerCostUsd: reported,
      });

      expect(result).toMatchObject({ costNanos: 2_500_000_000, costSource: 'PROVIDER_REGISTRY' });
    },
  );

  it('prices Anthropic web searches at $10 per 1,000 as a separate component', () => {
    const result = calculateCost({
      provider: 'anthropic',
      usage: usage({ model: 'claude-sonnet-4-5', inputTokens: 1_000, webSearchRequests: 3 }),
      at: AT,
    });

    expect(result.breakdown.toolFeesNanos).toBe(30_000_000);
    expect(result.costNanos).toBe(3_000_000 + 30_000_000);
  });

  it('charges no web-search fee where the price data has none (fallback)', () => {
    const result = calculateCost({
      provider: 'llama',
      usage: usage({ model: 'llama-3.3-70b', webSearchRequests: 5 }),
      at: AT,
    });

    expect(result.breakdown.toolFeesNanos).toBe(0);
  });
});
