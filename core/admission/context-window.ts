/**
 * The most input tokens a model accepts in one call, for requests that bring input the body does not
 * show (`previous_response_id`, files by id, `cachedContent`: issue 18.6): their worst case counts the
 * whole context window. From the providers' model pages (November 2026); first match wins, a model no
 * entry matches gets {@link DEFAULT_CONTEXT_TOKENS}.
 */

interface ContextRule {
  readonly pattern: RegExp;
  readonly contextTokens: number;
}

/** Families, most specific first, on the lowercased model name (vendor prefixes allowed). */
export const CONTEXT_RULES: readonly ContextRule[] = [
  { pattern: /gpt-5/, contextTokens: 400_000 },
  { pattern: /gpt-4\.1/, contextTokens: 1_047_576 },
  { pattern: /(?:^|\/)o[134](?:-|$)/, contextTokens: 200_000 },
  { pattern: /gpt-4o|chatgpt-4o|gpt-4-turbo/, contextTokens: 128_000 },
  { pattern: /gpt-3\.5/, contextTokens: 16_385 },
  // Sonnet 4 / 4.5 accept 1M tokens with the long-context beta header.
  { pattern: /claude-(?:sonnet-4|4-sonnet)/, contextTokens: 1_000_000 },
  { pattern: /claude/, contextTokens: 200_000 },
  { pattern: /gemini-1\.5-pro/, contextTokens: 2_097_152 },
  { pattern: /gemini/, contextTokens: 1_048_576 },
];

/** For a model no rule knows: the largest window offered (Gemini 1.5 Pro), so nothing is under-reserved. */
export const DEFAULT_CONTEXT_TOKENS = 2_097_152;

/**
 * The model's context window in tokens.
 *
 * @example contextTokensOf('gpt-4o-mini') // 128000
 */
export function contextTokensOf(model: string | null): number {
  if (model === null) return DEFAULT_CONTEXT_TOKENS;
  const m = model.toLowerCase();
  for (const rule of CONTEXT_RULES) if (rule.pattern.test(m)) return rule.contextTokens;
  return DEFAULT_CONTEXT_TOKENS;
}
