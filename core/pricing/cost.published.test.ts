/**
 * Costs against the providers' PUBLISHED price lists (USD per million tokens), written by hand from the
 * pages cited per block, not derived from the engine or the dataset. Each row gives the published
 * prices in its comment and the expected total in dollars.
 */
import { calculateCost, usdToNanos, type PricingUsage } from './index';

const usage = (parts: Partial<PricingUsage> & { uncached?: number }): PricingUsage => {
  const cacheRead = parts.cacheReadTokens ?? 0;
  const w5 = parts.cacheWrite5mTokens ?? 0;
  const w1h = parts.cacheWrite1hTokens ?? 0;
  return {
    inputTokens: (parts.uncached ?? 0) + cacheRead + w5 + w1h,
    cacheReadTokens: cacheRead,
    cacheWrite5mTokens: w5,
    cacheWrite1hTokens: w1h,
    outputTokens: parts.outputTokens ?? 0,
    reasoningTokens: parts.reasoningTokens ?? 0,
  };
};

const M = 1_000_000;
/** 1M uncached input + 1M cached input + 1M output: expected = input + cached + output prices. */
const inCachedOut = usage({ uncached: M, cacheReadTokens: M, outputTokens: M });
/** 1M input + 1M output: expected = input + output prices. */
const inOut = usage({ uncached: M, outputTokens: M });
/** 100k input + 100k output (for models with a 200k cliff). */
const smallInOut = usage({ uncached: 100_000, outputTokens: 100_000 });
/** Anthropic mix under the 200k cliff: 100k uncached, 50k cache read, 20k 5m write, 10k 1h write, 10k out. */
const anthropicMix = usage({
  uncached: 100_000,
  cacheReadTokens: 50_000,
  cacheWrite5mTokens: 20_000,
  cacheWrite1hTokens: 10_000,
  outputTokens: 10_000,
});
/** Gemini mix under the 200k cliff: 100k uncached, 50k cached, 10k out. */
const geminiMix = usage({ uncached: 100_000, cacheReadTokens: 50_000, outputTokens: 10_000 });

/** 2025-10-01 12:00 UTC: inside DeepSeek's standard hours (00:30–16:30 UTC). */
const AT = Date.UTC(2025, 9, 1, 12, 0, 0);
/** 2025-10-01 20:00 UTC: DeepSeek off-peak. */
const OFF_PEAK = Date.UTC(2025, 9, 1, 20, 0, 0);

type Row = [provider: string, model: string, expectedUsd: string, usage: PricingUsage, at?: number];

const rows: Row[] = [
  // OpenAI — openai.com/api/pricing (input / cached input / output)
  ['openai', 'gpt-4o', '13.75', inCachedOut], // 2.50 / 1.25 / 10.00
  ['openai', 'gpt-4o-2024-08-06', '13.75', inCachedOut], // dated snapshot, same price
  ['openai', 'gpt-4o-2024-05-13', '20.00', inOut], // 5.00 / 15.00 (priced differently from gpt-4o)
  ['openai', 'gpt-4o-mini', '0.825', inCachedOut], // 0.15 / 0.075 / 0.60
  ['openai', 'gpt-4o-mini-2024-07-18', '0.825', inCachedOut],
  ['openai', 'gpt-4.1', '10.50', inCachedOut], // 2.00 / 0.50 / 8.00
  ['openai', 'gpt-4.1-mini', '2.10', inCachedOut], // 0.40 / 0.10 / 1.60
  ['openai', 'gpt-4.1-nano', '0.525', inCachedOut], // 0.10 / 0.025 / 0.40
  ['openai', 'o3', '10.50', inCachedOut], // 2.00 / 0.50 / 8.00 (since 2025-06-10)
  ['openai', 'o3-mini', '6.05', inCachedOut], // 1.10 / 0.55 / 4.40
  ['openai', 'o4-mini', '5.775', inCachedOut], // 1.10 / 0.275 / 4.40
  ['openai', 'o1', '82.50', inCachedOut], // 15.00 / 7.50 / 60.00
  ['openai', 'gpt-5', '11.375', inCachedOut], // 1.25 / 0.125 / 10.00
  ['openai', 'gpt-5-mini', '2.275', inCachedOut], // 0.25 / 0.025 / 2.00
  ['openai', 'gpt-5-nano', '0.455', inCachedOut], // 0.05 / 0.005 / 0.40
  ['openai', 'gpt-3.5-turbo', '2.00', inOut], // 0.50 / 1.50
  ['openai', 'gpt-4-turbo', '40.00', inOut], // 10.00 / 30.00
  ['openai', 'ft:gpt-4o-mini-2024-07-18:acme::9xZ1', '1.65', inCachedOut], // fine-tuned: 0.30 / 0.15 / 1.20
  ['openai', 'ft:gpt-4.1-2025-04-14:acme::9xZ1', '15.75', inCachedOut], // fine-tuned: 3.00 / 0.75 / 12.00

  // Anthropic — platform.claude.com/docs/en/about-claude/pricing
  // (input / 5m write / 1h write / cache read / output); mix = 0.1·in + 0.05·read + 0.02·5m + 0.01·1h + 0.01·out
  ['anthropic', 'claude-sonnet-4-20250514', '0.60', anthropicMix], // 3 / 3.75 / 6 / 0.30 / 15
  ['anthropic', 'claude-sonnet-4-5-20250929', '0.60', anthropicMix], // same
  ['anthropic', 'claude-3-7-sonnet-20250219', '0.60', anthropicMix], // same
  ['anthropic', 'claude-opus-4-1-20250805', '3.00', anthropicMix], // 15 / 18.75 / 30 / 1.50 / 75
  ['anthropic', 'claude-opus-4-20250514', '3.00', anthropicMix],
  ['anthropic', 'claude-opus-4-5-20251101', '1.00', anthropicMix], // 5 / 6.25 / 10 / 0.50 / 25
  ['anthropic', 'claude-haiku-4-5-20251001', '0.20', anthropicMix], // 1 / 1.25 / 2 / 0.10 / 5
  ['anthropic', 'claude-3-5-haiku-20241022', '0.16', anthropicMix], // 0.80 / 1 / 1.60 / 0.08 / 4
  ['anthropic', 'claude-3-haiku-20240307', '0.05', anthropicMix], // 0.25 / 0.30 / 0.50 / 0.03 / 1.25

  // Gemini — ai.google.dev/gemini-api/docs/pricing (input / cached / output, prompts ≤ 200k)
  ['gemini', 'gemini-2.5-pro', '0.23125', geminiMix], // 1.25 / 0.125 / 10.00
  ['gemini', 'models/gemini-2.5-pro', '0.23125', geminiMix],
  ['gemini', 'gemini-2.5-flash', '0.0565', geminiMix], // 0.30 / 0.03 / 2.50
  ['gemini', 'gemini-2.5-flash-lite', '0.0145', geminiMix], // 0.10 / 0.01 / 0.40
  ['gemini', 'gemini-2.0-flash', '0.01525', geminiMix], // 0.10 / 0.025 / 0.40

  // Groq — groq.com/pricing (input / output)
  ['groq', 'llama-3.3-70b-versatile', '1.38', inOut], // 0.59 / 0.79
  ['groq', 'llama-3.1-8b-instant', '0.13', inOut], // 0.05 / 0.08
  ['groq', 'meta-llama/llama-4-scout-17b-16e-instruct', '0.45', inOut], // 0.11 / 0.34
  ['groq', 'meta-llama/llama-4-maverick-17b-128e-instruct', '0.80', inOut], // 0.20 / 0.60
  ['groq', 'qwen/qwen3-32b', '0.88', inOut], // 0.29 / 0.59
  ['groq', 'moonshotai/kimi-k2-instruct', '4.00', inOut], // 1.00 / 3.00

  // Mistral — mistral.ai/pricing (input / output)
  ['mistral', 'mistral-large-2411', '8.00', inOut], // 2 / 6
  ['mistral', 'mistral-small-latest', '0.40', inOut], // 0.10 / 0.30
  ['mistral', 'codestral-latest', '1.20', inOut], // 0.30 / 0.90
  ['mistral', 'open-mistral-nemo', '0.30', inOut], // 0.15 / 0.15
  ['mistral', 'pixtral-large-latest', '8.00', inOut], // 2 / 6
  ['mistral', 'mistral-medium-2505', '2.40', inOut], // 0.40 / 2

  // DeepSeek — api-docs.deepseek.com/quick_start/pricing-details-usd (cache miss / cache hit / output)
  ['deepseek', 'deepseek-chat', '1.44', inCachedOut, AT], // 0.27 / 0.07 / 1.10
  ['deepseek', 'deepseek-reasoner', '2.88', inCachedOut, AT], // 0.55 / 0.14 / 2.19
  ['deepseek', 'deepseek-chat', '0.72', inCachedOut, OFF_PEAK], // off-peak 50 % off: 0.135 / 0.035 / 0.55
  ['deepseek', 'deepseek-reasoner', '0.72', inCachedOut, OFF_PEAK], // off-peak 75 % off: 0.135 / 0.035 / 0.55

  // xAI — docs.x.ai/docs/models (input / cached input / output)
  ['xai', 'grok-4', '18.75', inCachedOut], // grok-4-0709: 3.00 / 0.75 / 15.00
  ['xai', 'grok-4-0709', '18.75', inCachedOut],
  ['xai', 'grok-3', '18.75', inCachedOut], // 3.00 / 0.75 / 15.00
  ['xai', 'grok-3-mini', '0.875', inCachedOut], // 0.30 / 0.075 / 0.50
  ['xai', 'grok-4-fast-reasoning', '0.75', inCachedOut], // 0.20 / 0.05 / 0.50
  ['xai', 'grok-code-fast-1', '1.72', inCachedOut], // 0.20 / 0.02 / 1.50

  // OpenRouter — openrouter.ai/<model> listings (input / output)
  ['openrouter', 'openai/gpt-4o', '12.50', inOut], // 2.50 / 10.00
  ['openrouter', 'openai/gpt-5', '11.25', inOut], // 1.25 / 10.00
  ['openrouter', 'openai/gpt-4.1-nano', '0.50', inOut], // 0.10 / 0.40
  ['openrouter', 'anthropic/claude-sonnet-4', '1.80', smallInOut], // 3 / 15 (100k + 100k: under the 200k cliff)
  ['openrouter', 'google/gemini-2.5-pro', '1.125', smallInOut], // 1.25 / 10 (under 200k)
  // OpenRouter has no own entry for these names: the underlying provider's list prices them.
  ['openrouter', 'openai/o1-preview', '75.00', inOut], // OpenAI o1-preview 15 / 60
  ['openrouter', 'anthropic/claude-3-5-haiku-20241022', '4.80', inOut], // Anthropic 0.80 / 4
];

describe('published prices', () => {
  it('covers at least 30 models across the eight priced providers', () => {
    const models = new Set(rows.map(([provider, model]) => `${provider}:${model}`));
    const providers = new Set(rows.map(([provider]) => provider));
    expect(models.size).toBeGreaterThanOrEqual(30);
    expect([...providers].sort()).toEqual(
      ['anthropic', 'deepseek', 'gemini', 'groq', 'mistral', 'openai', 'openrouter', 'xai'].sort(),
    );
  });

  it.each(rows)('%s %s costs $%s', (provider, model, expectedUsd, callUsage, at = AT) => {
    // Prepare
    const input = { provider, usage: { ...callUsage, model }, at };

    // Act
    const result = calculateCost(input);

    // Assess
    expect(result.costSource).toBe('PROVIDER_REGISTRY');
    expect(result.costNanos).toBe(usdToNanos(Number(expectedUsd)));
  });
});
