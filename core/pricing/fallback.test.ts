import {
  calculateCost,
  CATCH_ALL_FAMILY,
  FALLBACK_FAMILIES,
  fallbackFamilyFor,
  getDefaultPriceRegistry,
  normalizeModelName,
  parameterBillions,
  type PricingUsage,
} from './index';

const AT = Date.UTC(2025, 9, 1, 12);
const oneMillionEach: PricingUsage = {
  inputTokens: 1_000_000,
  cacheReadTokens: 0,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  outputTokens: 1_000_000,
  reasoningTokens: 0,
};

describe('FALLBACK_ECONOMICS', () => {
  it('gives every family, and the catch-all, non-zero input and output prices', () => {
    for (const family of [...FALLBACK_FAMILIES, CATCH_ALL_FAMILY]) {
      expect(family.price.base.input).toBeGreaterThan(0);
      expect(family.price.base.output).toBeGreaterThan(0);
      expect(family.price.base.cacheRead).toBeGreaterThan(0);
      expect(family.price.base.cacheWrite5m).toBeGreaterThan(0);
      expect(family.price.base.cacheWrite1h).toBeGreaterThan(0);
    }
  });

  it.each([
    ['anthropic', 'claude-opus-9-20290101', 'fallback:claude-opus', 90],
    ['anthropic', 'claude-sonnet-9', 'fallback:claude-sonnet', 28.5], // > 200k band: $6 + $22.50
    ['anthropic', 'claude-haiku-9', 'fallback:claude-haiku', 6],
    ['anthropic', 'claude-next', 'fallback:claude', 90],
    ['openai', 'o9-mini', 'fallback:o-mini', 20],
    ['openai', 'o1-pro-2026-01-01-preview', 'fallback:o1-pro', 750],
    ['openai', 'gpt-5.9-mini', 'fallback:gpt-mini', 5.25],
    ['openai', 'gpt-5.9', 'fallback:gpt-5', 55], // > 272k band: $10 + $45
    ['gemini', 'gemini-9-pro', 'fallback:gemini-pro', 22], // > 200k band: $4 + $18
    ['gemini', 'gemini-9-flash', 'fallback:gemini-flash', 10.5],
    ['xai', 'grok-9', 'fallback:grok', 18],
    ['mistral', 'mistral-large-2999', 'fallback:mistral-large', 8],
    ['deepseek', 'deepseek-v9', 'fallback:deepseek', 5.28],
    ['llama', 'llama-3-70b', 'fallback:open-weights-80b', 6.15],
    ['llama', 'meta-llama-3.1-8b-instruct', 'fallback:open-weights-10b', 0.9],
    ['together', 'org/my-finetune-405b', 'fallback:open-weights-xl', 7],
    ['openrouter', 'acme/secret-model', 'fallback:unknown', 40],
    ['some-gateway', 'my-model', 'fallback:unknown', 40],
  ])('prices %s %s by %s: $%s for 1M in + 1M out, never 0', (provider, model, family, expectedUsd) => {
    const result = calculateCost({ provider, usage: { ...oneMillionEach, model }, at: AT });

    expect(result.costSource).toBe('FALLBACK_ECONOMICS');
    expect(result.matchedModel).toBe(family);
    expect(result.costNanos).toBe(Math.round(expectedUsd * 1e9));
  });

  it('falls back to the provider default family when no family matches the name', () => {
    expect(fallbackFamilyFor('mystery', 'anthropic').id).toBe('claude');
    expect(fallbackFamilyFor('mystery', 'groq').id).toBe('llama');
    expect(fallbackFamilyFor('mystery', 'nobody').id).toBe('unknown');
  });

  it('prices a matched model that has no token price (Whisper) by the fallback', () => {
    const result = calculateCost({
      provider: 'openai',
      usage: { ...oneMillionEach, model: 'whisper-1' },
      at: AT,
    });

    expect(result.costSource).toBe('FALLBACK_ECONOMICS');
    expect(result.costNanos).toBeGreaterThan(0);
  });

  it.each([
    ['llama-3.1-70b-instruct', 70],
    ['mixtral-8x7b-instruct', 56],
    ['qwen3-235b-a22b', 235],
    ['llama-4-maverick-17b-128e', 17],
    ['gemma-3-27b-it', 27],
    ['gpt-4o', null],
    ['phi-3.5-mini', null],
  ])('reads the parameter count of %s as %p billion', (name, size) => {
    expect(parameterBillions(name)).toBe(size);
  });

  /**
   * The high-side property: a named family's price is at least the standard price of every model of the
   * bundled registry it would stand in for (first-party lists, text models; audio, image, realtime, TTS,
   * search and embedding variants are priced per modality and excluded).
   */
  it('never under-prices a known text model of a named family (bundled data)', () => {
    const registry = getDefaultPriceRegistry();
    const providerOf: Record<string, string> = {
      openai: 'openai',
      anthropic: 'anthropic',
      google: 'gemini',
      'x-ai': 'xai',
      mistral: 'mistral',
      deepseek: 'deepseek',
    };
    const modality =
      /realtime|audio|tts|transcribe|image|embed|search|live|whisper|voice|ocr|moderation|computer-use|:free/;
    const underPriced: string[] = [];
    for (const [datasetId, provider] of Object.entries(providerOf)) {
      for (const model of registry.listModels(datasetId)) {
        if (!model.tokenPriced || modality.test(model.id)) continue;
        const family = fallbackFamilyFor(normalizeModelName(model.id).familyName, provider);
        if (family.kind !== 'named') continue;
        for (const period of model.periods) {
          const { input, output } = period.price.base;
          if (input > family.price.base.input || output > family.price.base.output) {
            underPriced.push(`${datasetId}/${model.id} → ${family.id}`);
          }
        }
      }
    }
    expect(underPriced).toEqual([]);
  });
});
