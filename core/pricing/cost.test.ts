import {
  calculateCost,
  compileOrgRates,
  nanosToUsd,
  usdToNanos,
  type CostInput,
  type OrgRates,
  type PricingUsage,
} from './index';

const AT = Date.UTC(2025, 9, 1, 12);

const usage = (parts: Partial<PricingUsage> = {}): PricingUsage => ({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...parts,
});

const price = (
  provider: string,
  model: string,
  parts: Partial<PricingUsage>,
  extra: Partial<CostInput> = {},
) => calculateCost({ provider, usage: usage({ model, ...parts }), at: AT, ...extra });

const usd = (value: number): number => usdToNanos(value);

describe('calculateCost', () => {
  describe('the worked example', () => {
    it('prices 1,000,000 input tokens of gpt-4o at $2.50', () => {
      const result = price('openai', 'gpt-4o', { inputTokens: 1_000_000 });

      expect(result.costNanos).toBe(2_500_000_000);
      expect(nanosToUsd(result.costNanos)).toBe(2.5);
      expect(result).toMatchObject({
        costSource: 'PROVIDER_REGISTRY',
        matchedModel: 'gpt-4o',
        provider: 'openai',
        tier: 'standard',
        longContext: false,
        orgRate: 'none',
      });
    });
  });

  describe('prompt caching', () => {
    it('bills cached reads at the cache-read price and the rest of the prompt as uncached input', () => {
      // gpt-4o: 600 uncached × $2.50 + 400 cached × $1.25 + 100 out × $10 per MTok
      const result = price('openai', 'gpt-4o', {
        inputTokens: 1_000,
        cacheReadTokens: 400,
        outputTokens: 100,
      });

      expect(result.breakdown).toEqual({
        inputNanos: 1_500_000,
        cacheReadNanos: 500_000,
        cacheWriteNanos: 0,
        outputNanos: 1_000_000,
        toolFeesNanos: 0,
      });
      expect(result.costNanos).toBe(3_000_000);
    });

    it('bills Anthropic 5-minute writes at $3.75 and 1-hour writes at $6 for Claude Sonnet 4', () => {
      const result = price('anthropic', 'claude-sonnet-4-20250514', {
        inputTokens: 100_000,
        cacheWrite5mTokens: 40_000,
        cacheWrite1hTokens: 60_000,
      });

      // 40k × 3.75 + 60k × 6 = 0.15 + 0.36
      expect(result.breakdown.cacheWriteNanos).toBe(usd(0.51));
      expect(result.breakdown.inputNanos).toBe(0);
    });

    it('derives a missing 1-hour write price for Claude as 2× base input (Anthropic rule)', () => {
      // Vertex AI (provider gemini) lists claude-3-5-sonnet without a 1-hour price: 2 × $3 = $6.
      const result = price('gemini', 'claude-3-5-sonnet-v2@20241022', {
        inputTokens: 1_000,
        cacheWrite1hTokens: 1_000,
      });

      expect(result.matchedModel).toBe('claude-3-5-sonnet');
      expect(result.breakdown.cacheWriteNanos).toBe(usd(0.006));
    });

    it('derives missing Claude cache prices on OpenRouter from Anthropic multipliers', () => {
      // openrouter anthropic/claude-3.5-sonnet lists only $3 / $15: read 0.1×, 5m write 1.25×, 1h 2×.
      const result = price('openrouter', 'anthropic/claude-3.5-sonnet', {
        inputTokens: 3_000,
        cacheReadTokens: 1_000,
        cacheWrite5mTokens: 1_000,
        cacheWrite1hTokens: 1_000,
      });

      expect(result.breakdown.cacheReadNanos).toBe(usd(0.0003));
      expect(result.breakdown.cacheWriteNanos).toBe(usd(0.00975)); // 1k × $3.75 + 1k × $6
    });

    it('bills cache reads at the input price when the dataset has no cache price (non-Claude)', () => {
      // gpt-4-turbo lists no cached-input price: conservative, billed as input ($10/MTok).
      const result = price('openai', 'gpt-4-turbo', { inputTokens: 1_000, cacheReadTokens: 1_000 });

      expect(result.breakdown.cacheReadNanos).toBe(usd(0.01));
    });

    it("takes an aggregator's missing cache price from the vendor's entry (OpenRouter openai/gpt-4o)", () => {
      // OpenRouter lists $2.50 / $10 and no cached price; OpenAI's gpt-4o cached input is $1.25/MTok.
      const result = price('openrouter', 'openai/gpt-4o', { inputTokens: 1_000, cacheReadTokens: 1_000 });

      expect(result.breakdown.cacheReadNanos).toBe(usd(0.00125));
    });

    it('never bills negative uncached input when cache parts exceed the reported input', () => {
      const result = price('openai', 'gpt-4o', { inputTokens: 100, cacheReadTokens: 1_000 });

      expect(result.breakdown.inputNanos).toBe(0);
      expect(result.breakdown.cacheReadNanos).toBe(1_250_000);
    });
  });

  describe('reasoning tokens', () => {
    it('are part of the output and billed at the output price', () => {
      // o3: 1,000 output tokens of which 800 reasoning, $8/MTok
      const result = price('openai', 'o3', { inputTokens: 0, outputTokens: 1_000, reasoningTokens: 800 });

      expect(result.breakdown.outputNanos).toBe(usd(0.008));
    });

    it('are billed at a separate reasoning price when the dataset has one', () => {
      // Perplexity sonar-deep-research: output $8, reasoning $3 per MTok
      const result = price('perplexity', 'sonar-deep-research', {
        outputTokens: 1_000,
        reasoningTokens: 600,
      });

      expect(result.breakdown.outputNanos).toBe(400 * 8_000 + 600 * 3_000);
    });

    it('ignore reasoning counts larger than the output', () => {
      const result = price('openai', 'o3', { outputTokens: 100, reasoningTokens: 10_000 });

      expect(result.breakdown.outputNanos).toBe(100 * 8_000);
    });
  });

  describe('long-context cliff', () => {
    it('keeps Gemini 2.5 Pro at base rates up to 200,000 prompt tokens', () => {
      const result = price('gemini', 'gemini-2.5-pro', { inputTokens: 200_000, outputTokens: 1_000 });

      // 200k × $1.25 + 1k × $10
      expect(result.costNanos).toBe(usd(0.26));
      expect(result.longContext).toBe(false);
    });

    it('bills ALL Gemini 2.5 Pro tokens at the higher rate above 200,000 prompt tokens', () => {
      const result = price('gemini', 'gemini-2.5-pro', {
        inputTokens: 200_001,
        cacheReadTokens: 100_000,
        outputTokens: 1_000,
      });

      // 100,001 × $2.50 + 100,000 × $0.25 + 1,000 × $15
      expect(result.breakdown).toEqual({
        inputNanos: 100_001 * 2_500,
        cacheReadNanos: 100_000 * 250,
        cacheWriteNanos: 0,
        outputNanos: 1_000 * 15_000,
        toolFeesNanos: 0,
      });
      expect(result.longContext).toBe(true);
    });

    it('applies the Claude Sonnet 4 long-context band ($6 / $22.50) once cached tokens push the prompt over 200k', () => {
      const result = price('anthropic', 'claude-sonnet-4-20250514', {
        inputTokens: 210_000,
        cacheReadTokens: 60_000,
        cacheWrite1hTokens: 10_000,
        outputTokens: 2_000,
      });

      // 140k × $6 + 60k × $0.60 + 10k × $12 + 2k × $22.50
      expect(result.breakdown).toEqual({
        inputNanos: usd(0.84),
        cacheReadNanos: usd(0.036),
        cacheWriteNanos: usd(0.12),
        outputNanos: usd(0.045),
        toolFeesNanos: 0,
      });
      expect(result.longContext).toBe(true);
    });

    it('uses the dataset band for Claude Sonnet 4.5', () => {
      const below = price('anthropic', 'claude-sonnet-4-5', { inputTokens: 200_000, outputTokens: 1_000 });
      const above = price('anthropic', 'claude-sonnet-4-5', { inputTokens: 200_001, outputTokens: 1_000 });

      expect(below.costNanos).toBe(usd(0.615)); // 200k × $3 + 1k × $15
      expect(above.costNanos).toBe(200_001 * 6_000 + 1_000 * 22_500); // all at $6 / $22.50
    });
  });

  describe('service tiers', () => {
    const oneMillionEach = { inputTokens: 2_000_000, cacheReadTokens: 1_000_000, outputTokens: 1_000_000 };

    it('bills OpenAI batch at 50 %', () => {
      const result = price('openai', 'gpt-4o', oneMillionEach, { serviceTier: 'batch' });

      expect(result.tier).toBe('batch');
      expect(result.costNanos).toBe(usd(6.875)); // ($2.50 + $1.25 + $10) / 2
    });

    it('bills Anthropic batch at 50 % including cache writes and reads', () => {
      const result = price('anthropic', 'claude-sonnet-4-20250514', {
        inputTokens: 30_000,
        cacheReadTokens: 10_000,
        cacheWrite5mTokens: 10_000,
        outputTokens: 10_000,
        serviceTier: 'batch',
      });

      // (10k × 3 + 10k × 0.30 + 10k × 3.75 + 10k × 15) / 2 per MTok
      expect(result.costNanos).toBe(usd(0.11025)); // $0.2205 / 2
    });

    it('bills OpenAI flex at 50 % (batch prices)', () => {
      const result = price('openai', 'gpt-5', { ...oneMillionEach, serviceTier: 'flex' });

      // gpt-5 flex: $0.625 / $0.0625 / $5.00
      expect(result.costNanos).toBe(usd(5.6875));
    });

    it('bills Groq flex at the on-demand price', () => {
      const result = price('groq', 'llama-3.3-70b-versatile', {
        inputTokens: 1_000_000,
        serviceTier: 'flex',
      });

      expect(result.costNanos).toBe(usd(0.59));
    });

    it.each([
      // openai.com/api-priority-processing: input / cached / output
      ['gpt-4o', 23.375], // 4.25 + 2.125 + 17
      ['gpt-4o-mini', 1.375], // 0.25 + 0.125 + 1
      ['gpt-4.1', 18.375], // 3.50 + 0.875 + 14
      ['gpt-5', 22.75], // 2.50 + 0.25 + 20
      ['gpt-5-mini', 4.095], // 0.45 + 0.045 + 3.60
      ['o3', 18.375], // 3.50 + 0.875 + 14
      ['o4-mini', 10.5], // 2.00 + 0.50 + 8.00
    ])('bills OpenAI priority for %s at the published priority price', (model, expectedUsd) => {
      const result = price('openai', model, oneMillionEach, { serviceTier: 'priority' });

      expect(result.tier).toBe('priority');
      expect(result.costNanos).toBe(usd(expectedUsd));
    });

    it('bills OpenAI priority at 2× for a model outside the published table', () => {
      const result = price('openai', 'gpt-3.5-turbo', { inputTokens: 1_000_000, serviceTier: 'priority' });

      expect(result.costNanos).toBe(usd(1));
    });

    it('bills Gemini priority at 2× and Anthropic priority at the standard price', () => {
      const gemini = price('gemini', 'gemini-2.5-flash', { inputTokens: 1_000_000, serviceTier: 'priority' });
      const claude = price('anthropic', 'claude-haiku-4-5', {
        inputTokens: 100_000,
        serviceTier: 'priority',
      });

      expect(gemini.costNanos).toBe(usd(0.6));
      expect(claude.costNanos).toBe(usd(0.1));
    });

    it.each(['default', 'auto', 'standard', 'standard_only', 'scale', 'on_demand', 'something-new', null])(
      'treats service tier %p as standard',
      (serviceTier) => {
        const result = price('openai', 'gpt-4o', { inputTokens: 1_000_000, serviceTier });

        expect(result.tier).toBe('standard');
        expect(result.costNanos).toBe(usd(2.5));
      },
    );

    it('reads tiers case-insensitively and lets the caller override the reported tier', () => {
      const reported = price('openai', 'gpt-4o', { inputTokens: 1_000_000, serviceTier: ' Batch ' });
      const overridden = price(
        'openai',
        'gpt-4o',
        { inputTokens: 1_000_000, serviceTier: 'default' },
        {
          serviceTier: 'batch',
        },
      );

      expect(reported.tier).toBe('batch');
      expect(overridden.tier).toBe('batch');
    });
  });

  describe('negotiated org rates', () => {
    it('applies an organization-wide multiplier exactly', () => {
      const result = price(
        'openai',
        'gpt-4o',
        { inputTokens: 1_000_000 },
        { orgRates: { multiplier: 0.85 } },
      );

      expect(result.costNanos).toBe(usd(2.125));
      expect(result.orgRate).toBe('multiplier');
    });

    it('prefers a provider multiplier to the organization-wide one', () => {
      const orgRates: OrgRates = { multiplier: 0.5, providers: { anthropic: 0.9 } };

      const claude = price('anthropic', 'claude-sonnet-4', { inputTokens: 100_000 }, { orgRates });
      const openai = price('openai', 'gpt-4o', { inputTokens: 1_000_000 }, { orgRates });

      expect(claude.costNanos).toBe(usd(0.27));
      expect(openai.costNanos).toBe(usd(1.25));
    });

    it('replaces the list price with a per-model override, with the tier still applied on top', () => {
      const orgRates: OrgRates = {
        multiplier: 0.5,
        models: { 'openai:gpt-4o': { inputUsdPerMTok: 2, outputUsdPerMTok: 8, cacheReadUsdPerMTok: 1 } },
      };

      const standard = price(
        'openai',
        'gpt-4o-2024-08-06',
        { inputTokens: 2_000_000, cacheReadTokens: 1_000_000, outputTokens: 1_000_000 },
        { orgRates },
      );
      const batch = price('openai', 'gpt-4o', { inputTokens: 1_000_000, serviceTier: 'batch' }, { orgRates });

      expect(standard.orgRate).toBe('override');
      expect(standard.costNanos).toBe(usd(11)); // $2 + $1 + $8
      expect(batch.costNanos).toBe(usd(1));
    });

    it('prices an unknown model by its override and says so (ORG_RATE)', () => {
      const orgRates = compileOrgRates({
        models: { 'acme-llm-7': { inputUsdPerMTok: 0.5, outputUsdPerMTok: 1 } },
      });

      const result = price(
        'together',
        'Acme-LLM-7',
        { inputTokens: 1_000_000, outputTokens: 1_000_000 },
        { orgRates },
      );

      expect(result).toMatchObject({
        costSource: 'ORG_RATE',
        matchedModel: 'acme-llm-7',
        orgRate: 'override',
      });
      expect(result.costNanos).toBe(usd(1.5));
    });

    it('ignores invalid org rates instead of failing the event, and says so', () => {
      const result = price('openai', 'gpt-4o', { inputTokens: 1_000_000 }, { orgRates: { multiplier: -1 } });

      expect(result.orgRate).toBe('invalid');
      expect(result.costNanos).toBe(usd(2.5));
    });
  });

  describe('rounding and robustness', () => {
    it('rounds each component half-up once, in nanos', () => {
      // deepseek-v4-pro off-peak cache hit $0.003625/MTok = 3.625 nanos per token (before 2026-08-17, 12:00 UTC)
      const at = Date.UTC(2026, 0, 5, 12);
      const four = calculateCost({
        provider: 'deepseek',
        usage: usage({ model: 'deepseek-v4-pro', inputTokens: 4, cacheReadTokens: 4 }),
        at,
      });
      const two = calculateCost({
        provider: 'deepseek',
        usage: usage({ model: 'deepseek-v4-pro', inputTokens: 2, cacheReadTokens: 2 }),
        at,
      });

      expect(four.breakdown.cacheReadNanos).toBe(15); // 14.5 → 15
      expect(two.breakdown.cacheReadNanos).toBe(7); // 7.25 → 7
    });

    it('keeps sub-nano prices exact by working in pico-USD per token', () => {
      // gpt-4o-mini cached input $0.075/MTok = 75 pico-USD per token
      const result = price('openai', 'gpt-4o-mini', { inputTokens: 1_000_000, cacheReadTokens: 1_000_000 });

      expect(result.breakdown.cacheReadNanos).toBe(75_000_000);
    });

    it('sanitizes token counts: invalid or negative → 0, fractional → rounded up', () => {
      const result = price('openai', 'gpt-4o', {
        inputTokens: Number.NaN,
        cacheReadTokens: -5,
        outputTokens: 1.2,
        reasoningTokens: Number.POSITIVE_INFINITY,
      });

      expect(result.breakdown).toEqual({
        inputNanos: 0,
        cacheReadNanos: 0,
        cacheWriteNanos: 0,
        outputNanos: 20_000,
        toolFeesNanos: 0,
      });
    });

    it('accepts the time as a Date or epoch milliseconds', () => {
      const asNumber = price('openai', 'o3', { inputTokens: 1_000_000 });
      const asDate = calculateCost({
        provider: 'openai',
        usage: usage({ model: 'o3', inputTokens: 1_000_000 }),
        at: new Date(AT),
      });

      expect(asDate).toEqual(asNumber);
    });

    it('uses the price in force at the time of the call', () => {
      // o3 was $10 / $40 until 2025-06-10, then $2 / $8.
      const before = calculateCost({
        provider: 'openai',
        usage: usage({ model: 'o3', inputTokens: 1_000_000, outputTokens: 1_000_000 }),
        at: Date.UTC(2025, 5, 9),
      });
      const after = calculateCost({
        provider: 'openai',
        usage: usage({ model: 'o3', inputTokens: 1_000_000, outputTokens: 1_000_000 }),
        at: Date.UTC(2025, 5, 10),
      });

      expect(before.costNanos).toBe(usd(50));
      expect(after.costNanos).toBe(usd(10));
    });

    it('stays exact for huge token counts (bigint path)', () => {
      // 10 billion output tokens of o1-pro at $600/MTok = $6,000,000
      const result = price('openai', 'o1-pro', { outputTokens: 10_000_000_000 });

      expect(result.costNanos).toBe(6_000_000 * 1_000_000_000);
    });

    it('uses the requested model when the usage carries none', () => {
      const result = calculateCost({
        provider: 'openai',
        model: 'gpt-4o-mini',
        usage: usage({ model: null, inputTokens: 1_000_000 }),
        at: AT,
      });

      expect(result.matchedModel).toBe('gpt-4o-mini');
    });

    it('prices zero tokens at zero, even for an unknown model', () => {
      const result = price('openai', 'never-heard-of-it', {});

      expect(result.costNanos).toBe(0);
      expect(result.costSource).toBe('FALLBACK_ECONOMICS');
    });
  });
});
