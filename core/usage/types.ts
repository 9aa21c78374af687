/**
 * The normalized token usage of one provider call, whatever the provider's own format.
 *
 * Conventions (chosen so that pricing never has to know the provider):
 * - `inputTokens` counts every prompt token, INCLUDING cache reads and cache writes
 *   (OpenAI's `prompt_tokens` semantics). Anthropic's `input_tokens` excludes cache tokens,
 *   so its parser adds them back in.
 * - `outputTokens` counts every generated token, INCLUDING reasoning tokens
 *   (OpenAI's `completion_tokens` semantics). Gemini reports thoughts separately, so its
 *   parser adds `thoughtsTokenCount` to `candidatesTokenCount`.
 * - `reasoningTokens` is therefore a subset of `outputTokens`, reported for information.
 */
export interface NormalizedUsage {
  /** Model identifier as the provider reported it (or as requested when the response has none). */
  model: string | null;
  /** All prompt tokens, cache reads and writes included. */
  inputTokens: number;
  /** Prompt tokens served from the provider's prompt cache. */
  cacheReadTokens: number;
  /** Prompt tokens written to a 5-minute cache (Anthropic ephemeral_5m; OpenAI has none). */
  cacheWrite5mTokens: number;
  /** Prompt tokens written to a 1-hour cache (Anthropic ephemeral_1h). */
  cacheWrite1hTokens: number;
  /** All generated tokens, reasoning included. */
  outputTokens: number;
  /** Reasoning / thinking tokens (subset of outputTokens). */
  reasoningTokens: number;
  /** Service tier reported or requested: 'default' | 'flex' | 'priority' | 'batch' | provider-specific; null if unknown. */
  serviceTier: string | null;
  /** Cost the provider itself reported (OpenRouter `usage.cost`), in USD; null when not reported. */
  providerCostUsd: number | null;
  /** True when the figures were estimated (a stream that ended without a usage frame). */
  estimated: boolean;
}

/** Either a usage record, or the reason none could be read. Parsers never throw. */
export type UsageResult = { ok: true; usage: NormalizedUsage } | { ok: false; reason: string };
