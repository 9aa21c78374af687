/**
 * The most output tokens a model can generate in one call, for the worst case of a request that sets no
 * output bound (design decision 11). The bundled price data (genai-prices) carries context windows but no
 * output limits, so this is a table per model family, from the providers' model pages (November 2026).
 * First match wins; a model no entry matches gets {@link DEFAULT_MAX_OUTPUT_TOKENS}.
 */

interface MaxOutputRule {
  readonly pattern: RegExp;
  readonly maxOutputTokens: number;
}

/** Families, most specific first. Patterns run on the lowercased model name (OpenRouter prefixes allowed). */
export const MAX_OUTPUT_RULES: readonly MaxOutputRule[] = [
  // OpenAI
  { pattern: /gpt-5/, maxOutputTokens: 128_000 },
  { pattern: /(?:^|\/)o[134](?:-|$)/, maxOutputTokens: 100_000 },
  { pattern: /gpt-4\.1/, maxOutputTokens: 32_768 },
  { pattern: /gpt-4o|chatgpt-4o/, maxOutputTokens: 16_384 },
  { pattern: /gpt-4-turbo|gpt-4-\d{4}-preview/, maxOutputTokens: 4_096 },
  { pattern: /gpt-4(?:$|-0)/, maxOutputTokens: 8_192 },
  { pattern: /gpt-3\.5/, maxOutputTokens: 4_096 },
  { pattern: /gpt-oss/, maxOutputTokens: 131_072 },
  // Anthropic (the Messages API requires max_tokens, so this applies to other surfaces only)
  // Opus 4.5 before the Opus 4 row: a family row must never shadow a newer, larger model (issue 18.6).
  {
    pattern: /claude-(?:opus-4-5|opus-4\.5|sonnet-4|4-sonnet|3-7-sonnet|3\.7-sonnet|haiku-4|sonnet-4-5)/,
    maxOutputTokens: 64_000,
  },
  { pattern: /claude-(?:opus-4|4-opus|opus-4-1)/, maxOutputTokens: 32_000 },
  { pattern: /claude-3-5|claude-3\.5/, maxOutputTokens: 8_192 },
  { pattern: /claude/, maxOutputTokens: 4_096 },
  // Google
  { pattern: /gemini-(?:2\.5|3)/, maxOutputTokens: 65_536 },
  { pattern: /gemini/, maxOutputTokens: 8_192 },
  // Open-weight families as the hosted APIs serve them (Groq, Together, DeepSeek, Mistral, xAI)
  { pattern: /deepseek-(?:reasoner|r1)/, maxOutputTokens: 65_536 },
  { pattern: /deepseek/, maxOutputTokens: 8_192 },
  { pattern: /grok/, maxOutputTokens: 131_072 },
  { pattern: /llama|mistral|mixtral|qwen|gemma/, maxOutputTokens: 32_768 },
  // Amazon Nova on Bedrock (Nova Pro, Lite, Micro: 10K output tokens)
  { pattern: /amazon\.nova/, maxOutputTokens: 10_000 },
];

/** For a model no rule knows: generous, so an unknown model is over- rather than under-reserved. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 131_072;

/**
 * The model's output limit in tokens.
 *
 * @example maxOutputTokensOf('gpt-4o-mini-2024-07-18') // 16384
 * @example maxOutputTokensOf('some-new-model') // 131072
 */
export function maxOutputTokensOf(model: string | null): number {
  if (model === null) return DEFAULT_MAX_OUTPUT_TOKENS;
  const m = model.toLowerCase();
  for (const rule of MAX_OUTPUT_RULES) if (rule.pattern.test(m)) return rule.maxOutputTokens;
  return DEFAULT_MAX_OUTPUT_TOKENS;
}

/**
 * Documented output limits of exact model ids (dated snapshots of them included). Only these may lower
 * the output bound a request sets itself (issue 18.6): a family row above is a guess for requests that
 * set none, and trusting it for less than the request asked under-reserved `claude-opus-4-5` at
 * `max_tokens` 64,000 by half.
 */
export const DOCUMENTED_MAX_OUTPUT: Readonly<Record<string, number>> = Object.freeze({
  'gpt-4o': 16_384,
  'gpt-4o-mini': 16_384,
  'gpt-4.1': 32_768,
  'gpt-4.1-mini': 32_768,
  'gpt-4.1-nano': 32_768,
  'gpt-3.5-turbo': 4_096,
  'claude-opus-4-1': 32_000,
  'claude-opus-4-0': 32_000,
  'claude-opus-4': 32_000,
  'claude-opus-4-5': 64_000,
  'claude-sonnet-4-5': 64_000,
  'claude-sonnet-4': 64_000,
  'claude-haiku-4-5': 64_000,
  'claude-3-5-haiku': 8_192,
  'claude-3-haiku': 4_096,
  'nova-micro': 10_000,
  'nova-lite': 10_000,
  'nova-pro': 10_000,
});

/** Snapshot suffixes: `-2024-07-18`, `-20250929`, `-latest`. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;
/** Bedrock ids: a profile's geography, the vendor, and the version (`us.anthropic.claude-…-v1:0`). */
const BEDROCK_PROFILE = /^(?:global|us|us-gov|eu|apac|jp|au|ca)\./;
const BEDROCK_VENDOR = /^(?:amazon|anthropic|meta|mistral|cohere|ai21|openai|deepseek|qwen|writer)\./;
const BEDROCK_VERSION = /-v\d+(?::\d+)?$/;

/**
 * The documented output limit of exactly this model, or null when its id is not in
 * {@link DOCUMENTED_MAX_OUTPUT} (then the request's own bound stands).
 *
 * @example documentedMaxOutputOf('gpt-4o-mini-2024-07-18') // 16384
 * @example documentedMaxOutputOf('claude-opus-4-5-20251101') // 64000
 * @example documentedMaxOutputOf('us.anthropic.claude-opus-4-5-20251101-v1:0') // 64000
 */
export function documentedMaxOutputOf(model: string | null): number | null {
  if (model === null) return null;
  const id = model
    .toLowerCase()
    .replace(/^[a-z0-9-]+\//, '')
    .replace(BEDROCK_PROFILE, '')
    .replace(BEDROCK_VENDOR, '')
    .replace(BEDROCK_VERSION, '')
    .replace(SNAPSHOT_SUFFIX, '');
  return Object.prototype.hasOwnProperty.call(DOCUMENTED_MAX_OUTPUT, id)
    ? (DOCUMENTED_MAX_OUTPUT[id] as number)
    : null;
}
