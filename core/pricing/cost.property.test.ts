import fc from 'fast-check';
import {
  calculateCost,
  getDefaultPriceRegistry,
  type CostInput,
  type CostResult,
  type OrgRates,
} from './index';
import { ratesForPrompt, selectPeriodPrice } from './model-price';
import { normalizeServiceTier } from './tiers';

const MODELS: readonly (readonly [string, string])[] = [
  ['openai', 'gpt-4o'],
  ['openai', 'gpt-5.4'], // 272k cliff
  ['openai', 'o3'], // dated prices
  ['anthropic', 'claude-sonnet-4-20250514'], // 200k cliff (supplement), 5m/1h writes
  ['anthropic', 'claude-opus-4-1'],
  ['gemini', 'gemini-2.5-pro'], // 200k cliff
  ['deepseek', 'deepseek-v4-pro'], // time-of-day and dated prices, sub-nano cache price
  ['openrouter', 'anthropic/claude-3.5-sonnet'], // derived cache prices
  ['perplexity', 'sonar-deep-research'], // separate reasoning price
  ['xai', 'grok-4.3'],
  ['mistral', 'mistral-large-2411'],
  ['groq', 'llama-3.1-8b-instant'],
  ['llama', 'llama-3-70b'], // fallback by size
  ['openai', 'mystery-model'], // fallback by provider
];

const partsArb = fc.record({
  uncached: fc.nat({ max: 400_000 }),
  cacheRead: fc.nat({ max: 200_000 }),
  cacheWrite5m: fc.nat({ max: 100_000 }),
  cacheWrite1h: fc.nat({ max: 100_000 }),
  visibleOutput: fc.nat({ max: 100_000 }),
  reasoning: fc.nat({ max: 100_000 }),
});
type Parts = typeof partsArb extends fc.Arbitrary<infer T> ? T : never;

const orgRatesArb: fc.Arbitrary<OrgRates | null> = fc.option(
  fc.record({ multiplier: fc.integer({ min: 0, max: 2_000_000 }).map((ppm) => ppm / 1_000_000) }),
  { nil: null },
);

const callArb = fc.record({
  model: fc.constantFrom(...MODELS),
  parts: partsArb,
  tier: fc.constantFrom(null, 'default', 'batch', 'flex', 'priority'),
  orgRates: orgRatesArb,
  at: fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2027, 11, 31) }),
});
type Call = typeof callArb extends fc.Arbitrary<infer T> ? T : never;

const toInput = (call: Call, parts: Parts = call.parts): CostInput => ({
  provider: call.model[0],
  at: call.at,
  serviceTier: call.tier,
  orgRates: call.orgRates,
  usage: {
    model: call.model[1],
    inputTokens: parts.uncached + parts.cacheRead + parts.cacheWrite5m + parts.cacheWrite1h,
    cacheReadTokens: parts.cacheRead,
    cacheWrite5mTokens: parts.cacheWrite5m,
    cacheWrite1hTokens: parts.cacheWrite1h,
    outputTokens: parts.visibleOutput + parts.reasoning,
    reasoningTokens: parts.reasoning,
  },
});

const components = (result: CostResult): number[] => Object.values(result.breakdown);

/** An independent bigint reference of the arithmetic: exact rationals, one half-up rounding per component. */
function referenceNanos(call: Call): bigint {
  const registry = getDefaultPriceRegistry();
  const resolution = registry.resolve(call.model[0], call.model[1]);
  const { uncached, cacheRead, cacheWrite5m, cacheWrite1h, visibleOutput, reasoning } = call.parts;
  const rates = ratesForPrompt(
    selectPeriodPrice(resolution.periods, call.at),
    uncached + cacheRead + cacheWrite5m + cacheWrite1h,
  );
  const tier = resolution.tiers[normalizeServiceTier(call.tier)];
  let num = BigInt(tier.num);
  let den = BigInt(tier.den);
  if (call.orgRates?.multiplier !== undefined) {
    num *= BigInt(Math.round(call.orgRates.multiplier * 1_000_000));
    den *= 1_000_000n;
  }
  const component = (...terms: [number, number][]): bigint => {
    const x = terms.reduce((sum, [t, p]) => sum + BigInt(t) * BigInt(p), 0n) * num;
    const d = den * 1000n;
    return x / d + ((x % d) * 2n >= d ? 1n : 0n);
  };
  return (
    component([uncached, rates.input]) +
    component([cacheRead, rates.cacheRead]) +
    component([cacheWrite5m, rates.cacheWrite5m], [cacheWrite1h, rates.cacheWrite1h]) +
    component([visibleOutput, rates.output], [reasoning, rates.reasoning])
  );
}

describe('cost properties', () => {
  it('is a non-negative safe integer, and so is every component', () => {
    fc.assert(
      fc.property(callArb, (call) => {
        const result = calculateCost(toInput(call));
        for (const value of [result.costNanos, ...components(result)]) {
          expect(Number.isSafeInteger(value)).toBe(true);
          expect(value).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is exactly the sum of its components', () => {
    fc.assert(
      fc.property(callArb, (call) => {
        const result = calculateCost(toInput(call));
        expect(components(result).reduce((a, b) => a + b, 0)).toBe(result.costNanos);
      }),
      { numRuns: 500 },
    );
  });

  it('is monotone in every token count (adding tokens of any class never lowers the cost)', () => {
    const keys = [
      'uncached',
      'cacheRead',
      'cacheWrite5m',
      'cacheWrite1h',
      'visibleOutput',
      'reasoning',
    ] as const;
    fc.assert(
      fc.property(
        callArb,
        fc.constantFrom(...keys),
        fc.integer({ min: 1, max: 300_000 }),
        (call, key, extra) => {
          const before = calculateCost(toInput(call));
          const after = calculateCost(toInput(call, { ...call.parts, [key]: call.parts[key] + extra }));
          expect(after.costNanos).toBeGreaterThanOrEqual(before.costNanos);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('equals an exact bigint reference of the formula', () => {
    fc.assert(
      fc.property(callArb, (call) => {
        expect(BigInt(calculateCost(toInput(call)).costNanos)).toBe(referenceNanos(call));
      }),
      { numRuns: 500 },
    );
  });

  it('never prices tokens of an unknown model at zero', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 0, maxLength: 40 }),
        fc.constantFrom('openai', 'anthropic', 'llama', 'openrouter', 'together', 'nobody'),
        fc.integer({ min: 1, max: 1_000_000 }),
        (model, provider, inputTokens) => {
          const result = calculateCost({
            provider,
            at: Date.UTC(2025, 9, 1),
            usage: {
              model,
              inputTokens,
              cacheReadTokens: 0,
              cacheWrite5mTokens: 0,
              cacheWrite1hTokens: 0,
              outputTokens: 0,
              reasoningTokens: 0,
            },
          });
          if (result.costSource === 'FALLBACK_ECONOMICS') expect(result.costNanos).toBeGreaterThan(0);
        },
      ),
      { numRuns: 500 },
    );
  });
});
