/**
 * FALLBACK_ECONOMICS: conservative (high-side) prices for models the registry does not know.
 *
 * A call is never priced at $0 because its model is unknown. The reduced model name (no vendor, region,
 * path, fine-tune prefix or date; see `normalize-model.ts`) is matched against the families below, first
 * match wins; when none matches, the requested provider's default family applies, and finally the
 * catch-all. Each family's price is the HIGHEST standard text-token price of any model of that family
 * in the bundled registry, fine-tunes included (first-party lists for proprietary families; Groq,
 * Together and Bedrock for open weights), so an unknown variant is over- rather than under-estimated. `fallback.test.ts` checks
 * that property against the bundled data.
 *
 * Open-weight models (Llama on Meta's API or on a custom endpoint, Qwen, Gemma, Mistral's open models…)
 * are priced by parameter count when the name carries one (`8b`, `70b`, `8x7b`), by hosted-API size
 * brackets; an unsized Llama name is assumed 70B-class.
 *
 * Cache reads and writes of a family without known cache pricing are billed at the input price (the
 * conservative choice); Claude families use Anthropic's multipliers (read 0.1×, 5m write 1.25×, 1h 2×).
 */
import { modelPriceFromUsd, type ModelPrice, type UsdRates } from './model-price';

/**
 * `named`: the name identifies a product line (Opus, o1, gpt-4.1-mini…): its price is evidence for the
 * premium rule. `generic`: a vendor- or size-level guess, never counted as premium.
 */
export type FallbackFamilyKind = 'named' | 'generic';

/** A model family and its conservative price. */
export interface FallbackFamily {
  /** Reported as `matchedModel`, prefixed `fallback:`. */
  readonly id: string;
  readonly kind: FallbackFamilyKind;
  /** Tests the reduced, lower-cased model name. */
  readonly matches: (familyName: string) => boolean;
  readonly price: ModelPrice;
}

const LONG_CONTEXT_200K = 200_000;
const LONG_CONTEXT_272K = 272_000;

/** Rates in USD per million tokens: input, output and, when the family has its own price, cache read. */
const usd = (input: number, output: number, cacheRead?: number): UsdRates =>
  cacheRead === undefined ? { input, output } : { input, output, cacheRead };

/** Claude rates from input/output with Anthropic's cache multipliers. */
const claude = (input: number, output: number): UsdRates => ({
  input,
  output,
  cacheRead: input / 10,
  cacheWrite5m: input * 1.25,
  cacheWrite1h: input * 2,
});

function family(
  id: string,
  kind: FallbackFamilyKind,
  pattern: RegExp | ((name: string) => boolean),
  base: UsdRates,
  longContext?: { readonly aboveInputTokens: number; readonly rates: UsdRates },
): FallbackFamily {
  const matches = typeof pattern === 'function' ? pattern : (name: string) => pattern.test(name);
  return { id, kind, matches, price: modelPriceFromUsd(base, longContext ? [longContext] : []) };
}

const SIZE_RE = /(?:^|[^a-z0-9.])(\d+(?:\.\d+)?)b(?![a-z0-9])/g;
const MOE_RE = /(\d+)x(\d+(?:\.\d+)?)b(?![a-z0-9])/;

/** The parameter count in billions a model name carries (`llama-3.1-70b` → 70, `8x7b` → 56), or null. */
export function parameterBillions(name: string): number | null {
  let largest: number | null = null;
  for (const match of name.matchAll(SIZE_RE)) {
    const size = Number(match[1]);
    if (largest === null || size > largest) largest = size;
  }
  const moe = MOE_RE.exec(name);
  if (moe !== null) {
    const size = Number(moe[1]) * Number(moe[2]);
    if (largest === null || size > largest) largest = size;
  }
  return largest;
}

const sized = (min: number, max: number) => (name: string) => {
  const size = parameterBillions(name);
  return size !== null && size > min && size <= max;
};

/** The families, in match order; the comment above each says where its price comes from. */
export const FALLBACK_FAMILIES: readonly FallbackFamily[] = [
  // Anthropic
  // Claude Opus 4 / 4.1 list price (highest Opus)
  family('claude-opus', 'named', /opus/, claude(15, 75)),
  // Claude Sonnet 4 / 4.5 incl. > 200k band
  family('claude-sonnet', 'named', /sonnet/, claude(3, 15), {
    aboveInputTokens: LONG_CONTEXT_200K,
    rates: claude(6, 22.5),
  }),
  // Claude Haiku 4.5 (highest Haiku)
  family('claude-haiku', 'named', /haiku/, claude(1, 5)),
  // unknown Claude line: Opus-level
  family('claude', 'generic', /claude/, claude(15, 75)),
  // OpenAI reasoning models
  // o1-pro
  family('o1-pro', 'named', /^o1-pro/, usd(150, 600)),
  // o3-pro
  family('o-pro', 'named', /^o\d+-pro/, usd(20, 80)),
  // o3-deep-research
  family('deep-research', 'named', /deep-research/, usd(10, 40, 2.5)),
  // fine-tuned o4-mini
  family('o-mini', 'named', /^o\d+-mini/, usd(4, 16, 1)),
  // o1
  family('o1', 'named', /^o1/, usd(15, 60, 7.5)),
  // o3 (launch price)
  family('o-series', 'named', /^o\d/, usd(10, 40, 2.5)),
  // OpenAI GPT
  // gpt-5.4-pro incl. > 272k band
  family('gpt-pro', 'named', /^gpt-[\d.]+-pro/, usd(30, 180), {
    aboveInputTokens: LONG_CONTEXT_272K,
    rates: usd(60, 270),
  }),
  // fine-tuned gpt-4o-mini
  family('gpt-4o-mini', 'named', /gpt-4o-mini/, usd(0.3, 1.2, 0.15)),
  // gpt-4o:extended
  family('gpt-4o', 'named', /gpt-4o/, usd(6, 18, 3)),
  // fine-tuned 4.1-nano
  family('gpt-4.1-nano', 'named', /gpt-4\.1-nano/, usd(0.2, 0.8, 0.05)),
  // fine-tuned 4.1-mini
  family('gpt-4.1-mini', 'named', /gpt-4\.1-mini/, usd(0.8, 3.2, 0.2)),
  // fine-tuned gpt-4.1
  family('gpt-4.1', 'named', /gpt-4\.1/, usd(3, 12, 0.75)),
  // gpt-4.5-preview
  family('gpt-4.5', 'named', /gpt-4\.5/, usd(75, 150, 37.5)),
  // gpt-4-32k
  family('gpt-4-32k', 'named', /gpt-4-32k/, usd(60, 120)),
  // gpt-4-turbo
  family('gpt-4-turbo', 'named', /gpt-4-(?:turbo|vision|\d{4}-preview)/, usd(10, 30)),
  // gpt-4
  family('gpt-4', 'named', /^gpt-4/, usd(30, 60)),
  // fine-tuned gpt-3.5-turbo
  family('gpt-3.5', 'named', /gpt-3\.5|gpt-35/, usd(3, 6)),
  // gpt-oss-120b on Groq
  family('gpt-oss', 'named', /gpt-oss/, usd(0.15, 0.6, 0.075)),
  // codex-mini-latest
  family('codex-mini', 'named', /codex-mini/, usd(1.5, 6, 0.375)),
  // gpt-5.4-nano
  family('gpt-nano', 'named', /^gpt-[\d.]+.*nano/, usd(0.2, 1.25, 0.02)),
  // gpt-5.4-mini
  family('gpt-mini', 'named', /^gpt-[\d.]+.*mini/, usd(0.75, 4.5, 0.075)),
  // gpt-5.5 incl. > 272k band
  family('gpt-5', 'generic', /^gpt-5/, usd(5, 30, 0.5), {
    aboveInputTokens: LONG_CONTEXT_272K,
    rates: usd(10, 45, 1),
  }),
  // gpt-6-astra
  family('gpt', 'generic', /^(?:chat)?gpt/, usd(10, 50, 1), {
    aboveInputTokens: LONG_CONTEXT_272K,
    rates: usd(20, 75, 2),
  }),
  // embedding models (≤ $0.20/MTok)
  family('embedding', 'generic', /embed/, usd(0.2, 0.2)),
  // Google
  // gemini-3.5-flash-lite
  family('gemini-flash-lite', 'named', /flash-lite/, usd(0.3, 2.5, 0.03)),
  // gemini-3-pro incl. > 200k
  family('gemini-pro', 'named', /gemini.*pro/, usd(2, 12, 0.2), {
    aboveInputTokens: LONG_CONTEXT_200K,
    rates: usd(4, 18, 0.4),
  }),
  // gemini-3.5-flash
  family('gemini-flash', 'named', /flash/, usd(1.5, 9, 0.15)),
  // Gemini Pro level
  family('gemini', 'generic', /gemini/, usd(2, 12, 0.2), {
    aboveInputTokens: LONG_CONTEXT_200K,
    rates: usd(4, 18, 0.4),
  }),
  // xAI
  // grok-3-mini-fast
  family('grok-mini', 'named', /grok.*mini/, usd(0.6, 4, 0.15)),
  // grok-3-fast
  family('grok-fast', 'generic', /grok.*fast/, usd(5, 25, 1.25)),
  // grok-3 / grok-4
  family('grok', 'named', /grok/, usd(3, 15, 0.75)),
  // Mistral
  // mistral-large
  family('mistral-large', 'named', /mistral-large|pixtral-large|magistral-medium/, usd(2, 6)),
  // mistral-medium-2312
  family('mistral-medium', 'named', /mistral-medium/, usd(2.7, 8.1)),
  // devstral-2512
  family('codestral', 'named', /codestral|devstral/, usd(0.4, 2)),
  // ministral-14b
  family('ministral', 'named', /ministral/, usd(0.2, 0.2)),
  // magistral-small
  family('mistral-small', 'named', /mistral-small|magistral-small/, usd(0.5, 1.5)),
  // Mixtral 8x22B (Together in, Mistral out)
  family('mixtral-8x22b', 'named', /mixtral-8x22b/, usd(2.4, 6)),
  // open-mixtral-8x7b
  family('mixtral', 'named', /mixtral/, usd(0.7, 0.7)),
  // DeepSeek
  // R1
  family('deepseek-reasoner', 'named', /deepseek.*(?:r1|reasoner)/, usd(0.75, 2.19, 0.14)),
  // deepseek-v4-pro peak
  family('deepseek', 'generic', /deepseek/, usd(1.32, 3.96, 0.14)),
  // Other proprietary lines
  // kimi-k3
  family('kimi', 'named', /kimi|moonshot/, usd(3, 15)),
  // command-a
  family('command', 'named', /^command/, usd(2.5, 10)),
  // GLM-5.2
  family('glm', 'named', /glm/, usd(1.4, 4.4)),
  // qwen-max
  family('qwen-max', 'named', /qwen.*max/, usd(1.6, 6.4)),
  // Open weights by parameter count (Groq, Together, Bedrock list prices, high side)
  // ≤ 4B (Bedrock Llama 3.2 3B)
  family('open-weights-4b', 'generic', sized(0, 4), usd(0.2, 0.2)),
  // ≤ 10B (Bedrock Llama 3 8B)
  family('open-weights-10b', 'generic', sized(4, 10), usd(0.3, 0.6)),
  // ≤ 20B (Llama 4 17B MoE)
  family('open-weights-20b', 'generic', sized(10, 20), usd(0.3, 1)),
  // ≤ 35B (Gemma 4 31B)
  family('open-weights-35b', 'generic', sized(20, 35), usd(1, 1.5)),
  // ≤ 80B (Bedrock Llama 3 70B)
  family('open-weights-80b', 'generic', sized(35, 80), usd(2.65, 3.5)),
  // > 80B (Llama 3.1 405B)
  family('open-weights-xl', 'generic', sized(80, Infinity), usd(3.5, 3.5)),
  // unsized Llama: 70B-class
  family('llama', 'generic', /llama/, usd(2.65, 3.5)),
  // mistral-medium
  family('mistral', 'generic', /mistral|pixtral|magistral|voxtral/, usd(2.7, 8.1)),
  // qwen-max
  family('qwen', 'generic', /qwen/, usd(1.6, 6.4)),
  // Gemma 4 31B
  family('gemma', 'generic', /gemma/, usd(1, 1.5)),
];

/** The last resort: about the 95th percentile of list prices, above every mid-tier model. */
// unknown model: $10 in / $30 out per MTok, above ~95 % of the registry (output ≥ $30 is the top ~8 %)
export const CATCH_ALL_FAMILY: FallbackFamily = family('unknown', 'generic', () => true, usd(10, 30));

const FAMILY_BY_ID = new Map(FALLBACK_FAMILIES.map((f) => [f.id, f]));

/** Spendguard provider id → family used when the name matches no family. */
const PROVIDER_DEFAULT_FAMILY: Readonly<Record<string, string>> = {
  anthropic: 'claude',
  openai: 'gpt',
  azure: 'gpt',
  gemini: 'gemini',
  google: 'gemini',
  xai: 'grok',
  mistral: 'mistral',
  deepseek: 'deepseek',
  groq: 'llama',
  together: 'llama',
  llama: 'llama',
};

/**
 * The fallback family for a reduced model name called through `provider`.
 *
 * @example fallbackFamilyFor('claude-sonnet-9', 'anthropic').id === 'claude-sonnet'
 */
export function fallbackFamilyFor(familyName: string, provider: string): FallbackFamily {
  for (const candidate of FALLBACK_FAMILIES) if (candidate.matches(familyName)) return candidate;
  const defaultId = PROVIDER_DEFAULT_FAMILY[provider.trim().toLowerCase()];
  return (defaultId !== undefined ? FAMILY_BY_ID.get(defaultId) : undefined) ?? CATCH_ALL_FAMILY;
}
